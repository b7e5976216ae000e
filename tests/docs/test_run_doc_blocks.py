#!/usr/bin/python3
"""Self-test of run_doc_blocks.py (ctest docs:runner): parsing, the comparison rules, --update's
alignment, and a whole run on a small markdown file with every marker (needs only bash)."""
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_doc_blocks as r  # noqa: E402

# comparison: strict lines, `...` any number of lines (zero too), times normalised, nothing else
assert r.matches(['a', 'b'], ['a', 'b'])
assert not r.matches(['a', 'b'], ['a', 'c'])
assert not r.matches(['a'], ['a', 'b'])
assert r.matches(['a', '...'], ['a', 'b', 'c'])
assert r.matches(['a', '...', 'c'], ['a', 'c'])
assert r.matches(['...', 'c'], ['a', 'b', 'c'])
assert not r.matches(['...', 'c'], ['c', 'd'])
assert r.matches(['time     425.16 ms (reading 25.83 ms)'], ['time     9.96 ms (reading 30.21 ms)'])
assert r.matches(['x   (0.28 s)', 'y 10 min 46 s', 'z 2849/s'], ['x   (12.5 s)', 'y 9 min 3 s', 'z 13/s'])
assert r.matches(['w 0.2062   214.7 us'], ['w 0.2062     4.98 ms'])  # right-aligned time column
assert not r.matches(['params 6,738,415,616'], ['params 6,738,415,617'])
assert not r.matches(['ratio 0.2062'], ['ratio 0.2063'])
assert not r.matches(['a '], ['a', ''] + ['b'])

# --update keeps the shown selection: `...` stays, unshown runs become `...`, moved lines shown
real = ['model x', 'scoring y', 'NSC 1', 'params total 2', 'params non 3', 'a', 'b', 'c', 'd']
assert r.updated(['NSC 1', 'params total 5', '...'], real) == ['model x', 'scoring y', 'NSC 1', 'params total 2', '...']
assert r.updated(['err'], ['err', 'exit 2']) == ['err', 'exit 2']
assert r.updated(['foo'], ['bar']) == ['bar']
assert r.updated(['t 5 ms', 'v 1'], ['t 7 ms', 'v 2']) == ['t 5 ms', 'v 2']  # no churn of times
lines = ['a 1', 'layers 0-0: x', '         ... (one line per run)', 'engine e'] 
got = r.updated(lines, ['a 1', 'layers 0-0: x'] + ['layers %d-%d: z' % (i, i) for i in range(1, 70)] + ['engine e'])
assert got == ['a 1', 'layers 0-0: x', '...', 'engine e'], got
got = r.updated(['b 1', '  layers 0-0: x', '  layers 1-1: y', '...', 'e'],
                ['b 1', '  layer 0: x', '  layer 1: y'] + ['  layer %d: z' % i for i in range(2, 60)] + ['e'])
assert got == ['b 1', '  layer 0: x', '  layer 1: y', '...', 'e'], got
got = r.updated(['x', 'y', 'z', 'note 1', 'note 2', 'note 3'], ['x', 'note 1', 'note 2', 'note 3', 'y', 'zz'])
assert got == ['x', 'note 1', 'note 2', 'note 3', 'y', 'zz'], got

# a whole file: markers, setup, order, exit status, >>> skipped without the Python package
md = r'''# t
<!-- doc-test: setup printf 'a\nb\n' > in.txt -->
```console
$ cat in.txt
a
b
$ wc -l < in.txt; false; echo "exit $?"
2
exit 1
```

<!-- doc-test: long takes ages -->
```
$ sleep 100
```

<!-- doc-test: needs nothing-here: make it with magic -->
```
$ cat nothing-here
```

<!-- doc-test: skip its output is a measurement -->
```
$ date
Mon
```

```python
>>> 1 + 1
2
```

<!-- doc-test: file tests/docs/test_run_doc_blocks.py -->
```python
import run_doc_blocks as r  # noqa: E402
```

```
$ echo one; echo two
one
three
$ false
```
'''
repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, 't.md')
    open(path, 'w').write(md)
    run = subprocess.run([sys.executable, os.path.join(repo, 'tests/docs/run_doc_blocks.py'), '--repo', repo, path],
                         capture_output=True, text=True, timeout=60)
    out = run.stdout
    assert run.returncode == 1, out
    assert '8 commands in 6 blocks: 4 run (2 passed, 0 updated, 2 failed), 2 long, 2 skipped; 1 code blocks checked against files, 0 C++ snippets (built and run by ctest docs:cpp_snippets), 0 code blocks not run' in out, out
    assert 't.md:39 (block at line 38)' in out and '-three' in out and '+two' in out, out
    assert 'exit status 1' in out, out
    assert 'needs nothing-here: make it with magic' in out, out
    assert 'skipped (its output is a measurement)' in out, out
    assert 'the Python package is not built' in out, out
    # --update rewrites the mismatch, then the file passes except the failing command
    subprocess.run([sys.executable, os.path.join(repo, 'tests/docs/run_doc_blocks.py'), '--repo', repo, '--update', path],
                   capture_output=True, text=True, timeout=60)
    text = open(path).read()
    assert '$ echo one; echo two\none\ntwo\n$ false' in text, text
# >>> examples: one interpreter per file, skipped blocks not sent, exceptions as Python shows them
md = """```python
>>> x = 40
>>> x + 2
42
```

<!-- doc-test: skip not this one -->
```python
>>> x = 0
```

```python
>>> for i in range(2):
...     print(i + x)
40
41
>>> nsc.Infeasible("no")
Traceback (most recent call last):
>>> raise nsc.Infeasible("budget")
nsc.Infeasible: budget
>>> int("a")
ValueError: invalid literal for int() with base 10: 'a'
```
"""
with tempfile.TemporaryDirectory() as d:
    os.makedirs(os.path.join(d, 'py', 'nsc'))
    with open(os.path.join(d, 'py', 'nsc', '__init__.py'), 'w') as f:  # a stand-in package
        f.write('class Infeasible(Exception):\n    __module__ = "nsc"\n')
    path = os.path.join(d, 'p.md')
    open(path, 'w').write(md)
    run = subprocess.run([sys.executable, os.path.join(repo, 'tests/docs/run_doc_blocks.py'), '--repo', repo,
                          '--python-path', os.path.join(d, 'py'), path], capture_output=True, text=True, timeout=60)
    out = run.stdout
    assert '7 commands in 3 blocks: 6 run (5 passed, 0 updated, 1 failed), 0 long, 1 skipped' in out, out
    assert "+Infeasible('no')" in out, out
print('run_doc_blocks self-test: ok')
