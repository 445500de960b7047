"""Terminal UI for slop: the only package that may import rich or prompt_toolkit.

* :mod:`slop.ui.stream` renders streamed markdown replies at linear cost.
* :mod:`slop.ui.render` is the :class:`~slop.ui.render.Renderer` the REPL and the
  orchestrator call for every kind of output.
* :mod:`slop.ui.icons` holds the icon sets (Unicode and an ASCII fallback).
"""
