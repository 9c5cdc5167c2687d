#!/usr/bin/env python3
"""Entry point (extension.json's exec). Tests import guard.py instead."""
import os
import sys

try:
    import zot_ext  # noqa: F401  (pip install ./python)
except ImportError:  # run from this repository without installing the SDK
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))

from guard import create_guard

create_guard().run()
