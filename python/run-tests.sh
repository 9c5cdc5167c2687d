#!/bin/sh
# The Python tests of `npm test`: the SDK's (python/tests) and those of each examples/python-*/.
# ZOT_EXT_PYTHON picks the interpreter (e.g. a python3.9); else /usr/bin/python3 when present, else python3.
set -e
cd "$(dirname "$0")/.."
PY=${ZOT_EXT_PYTHON:-}
if [ -z "$PY" ]; then
  if [ -x /usr/bin/python3 ]; then PY=/usr/bin/python3; else PY=python3; fi
fi
"$PY" -m unittest discover -s python/tests -t python
for dir in examples/python-*/; do
  PYTHONPATH="$PWD/python${PYTHONPATH:+:$PYTHONPATH}" "$PY" -m unittest discover -s "$dir" -t "$dir"
done
