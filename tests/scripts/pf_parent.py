"""Runs one provider call; argv[1:] is its command. With --handlers first, installs the
SIGTERM/SIGHUP handlers of `discussions.providers.command` before calling."""

import shlex
import sys

from discussions.providers import CommandProvider, ProviderRequest, ProviderSpec
from discussions.providers.command import install_signal_handlers

args = sys.argv[1:]
if args[0] == "--handlers":
    install_signal_handlers()
    args = args[1:]
command = " ".join(shlex.quote(w) for w in args)
provider = CommandProvider(ProviderSpec(name="child", command=command))
provider.complete(ProviderRequest(prompt="p", timeout=600))
