"""The ``contact-fmu`` console script: the Rust command line, run in this process."""
import signal
import sys

from . import _native


def main() -> None:
    """Runs ``contact-fmu`` with ``sys.argv`` and exits with its code."""
    # Ctrl-C stops the command at once, as it does the Rust executable (the command
    # runs without the GIL, where Python's own handler would only set a flag)
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    # the runtimes installed with the package: importing the package registers them
    import contact_fmu  # noqa: F401

    sys.stdout.flush()
    sys.exit(_native.cli(["contact-fmu", *sys.argv[1:]]))
