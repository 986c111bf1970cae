"""``python -m contact_fmu ...``: the ``contact-fmu`` command line."""
from ._cli import main

main()
