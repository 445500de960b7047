"""The context strategies, one module each (the context modes of `/context mode`), on
one base (`base.py`); `catalog.py` lists the built-in ones."""
