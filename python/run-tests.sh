#!/bin/sh
# The Python tests of `npm test`: the SDK's (python/tests) and the python-guard example's.
# ZOT_EXT_PYTHON picks the interpreter (e.g. a python3.9); else /usr/bin/python3 when present, else python3.
set -e
cd "$(dirname "$0")/.."
PY=${ZOT_EXT_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
fi
"$PY" -m unittest discover -s python/tests -t python
PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m unittest discover -s examples/python-guard -t examples/python-guard
