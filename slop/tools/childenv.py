"""The environment of every process slop starts: the user's, minus provider keys.

A command the model runs (or a search, or git) needs PATH, HOME and the user's
tool settings, but not the keys slop uses to talk to the model: anything the
command prints goes back to the model and into the ledger. The rule for which
variables are keys is `slop.settings.is_secret_name`; `--pass-env NAME` keeps one.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

from slop.settings import is_secret_name


def child_environment(pass_env: Collection[str] = (), environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """`environ` (default: this process's) without secret-named variables, except `pass_env`."""
    env = os.environ if environ is None else environ
    keep = {name.upper() for name in pass_env}
    return {name: value for name, value in env.items() if not is_secret_name(name) or name.upper() in keep}
