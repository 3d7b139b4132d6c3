"""Griffe extensions for the API reference (mkdocs.yml loads them).

:class:`RBridgeWrappers`: ``pysdc/r/__init__.py`` adds one wrapper per registered measure
(``globals().update(_WRAPPERS)``), so a static reading of the source does not see them. The extension imports
``pysdc.r`` (which starts neither R nor rpy2) and adds each wrapper to the static model with its real signature
and docstring, so the API reference documents exactly the functions users call.

:class:`RegistryExports`: ``pysdc/__init__.py`` exports every registered measure and its result class from the
registry (``globals().update(...)``, :mod:`pysdc._registry`); the extension adds each to the static model of
``pysdc`` as an alias of its defining module's object, so ``::: pysdc.<measure>`` resolves.

:class:`NumpydocReferences`: numpydoc's References (``.. [1] ...``) as a Markdown list.
"""

from __future__ import annotations

import inspect
import re

import griffe

_KINDS = {
    inspect.Parameter.POSITIONAL_ONLY: griffe.ParameterKind.positional_only,
    inspect.Parameter.POSITIONAL_OR_KEYWORD: griffe.ParameterKind.positional_or_keyword,
    inspect.Parameter.VAR_POSITIONAL: griffe.ParameterKind.var_positional,
    inspect.Parameter.KEYWORD_ONLY: griffe.ParameterKind.keyword_only,
    inspect.Parameter.VAR_KEYWORD: griffe.ParameterKind.var_keyword,
}


def _annotation(a) -> str | None:
    if a is inspect.Parameter.empty:
        return None
    return a if isinstance(a, str) else inspect.formatannotation(a)


class RBridgeWrappers(griffe.Extension):
    def on_module_members(self, *, mod: griffe.Module, **kwargs) -> None:  # noqa: ARG002
        if mod.path != "pysdc.r":
            return
        from pysdc.r._measures import WRAPPERS
        from pysdc.r._methods import METHOD_WRAPPERS

        for name, fn in {**WRAPPERS, **METHOD_WRAPPERS}.items():
            sig = inspect.signature(fn)
            params = griffe.Parameters(*(
                griffe.Parameter(p.name, annotation=_annotation(p.annotation), kind=_KINDS[p.kind],
                                 default=None if p.default is inspect.Parameter.empty else repr(p.default))
                for p in sig.parameters.values()
            ))
            func = griffe.Function(name, parameters=params, returns=_annotation(sig.return_annotation),
                                   lineno=0, endlineno=0)
            func.docstring = griffe.Docstring(inspect.cleandoc(fn.__doc__ or ""), parent=func, lineno=0, endlineno=0)
            mod.set_member(name, func)


class RegistryExports(griffe.Extension):
    def on_module_members(self, *, mod: griffe.Module, **kwargs) -> None:  # noqa: ARG002
        if mod.path != "pysdc":
            return
        from pysdc._registry import MEASURES

        objs = {m.python: m.native for m in MEASURES}
        objs.update({m.result.__name__: m.result for m in MEASURES if m.result.__module__.startswith("pysdc")})
        for name, obj in objs.items():
            if name not in mod.members:
                mod.set_member(name, griffe.Alias(name, f"{obj.__module__}.{obj.__qualname__}", parent=mod))


_FOOTNOTE = re.compile(r"^(\s*)\.\. \[(\w+)\]", re.M)


class NumpydocReferences(griffe.Extension):
    """numpydoc's References (``.. [1] Author, title``) as a Markdown list, one reference an item."""

    def on_object(self, *, obj: griffe.Object, **kwargs) -> None:  # noqa: ARG002
        if obj.docstring is not None and ".. [" in obj.docstring.value:
            obj.docstring.value = _FOOTNOTE.sub(r"\1- [\2]", obj.docstring.value)
