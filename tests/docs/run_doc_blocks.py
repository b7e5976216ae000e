#!/usr/bin/python3
"""Run the examples of markdown files and compare their output with the text shown (issue 23).

    run_doc_blocks.py --repo DIR --bin DIR [--python-path DIR] [--long] [--update] [--list]
                      [--keep] [--timings] FILE.md...

Examples are found in fenced blocks (```console, ```sh, ``` ...):
  * a shell example is a line `$ COMMAND` (continued on the next line when it ends with `\\`),
    followed by the output it prints, up to the next `$ ` line or the closing fence;
  * a Python example is a line `>>> STATEMENT` (continued by `... ` lines), followed by its
    output (printed text and the repr of an expression's value, as the interactive interpreter
    shows it; an exception as its last traceback line, `nsc.Infeasible: ...`).

Every command of a file runs in file order in one scratch directory that looks like the
repository root: a symlink to each top-level directory of the repository (examples/, tests/,
scripts/, ...; `build` -> the build directory of --bin; `docs` is an empty directory, so that
`--plot docs/x.png` does not write into the source tree), a copy of each top-level file, and
`.venv/bin/python` = Debian's /usr/bin/python3 with --python-path on PYTHONPATH (the venv of
`sh scripts/quickstart.sh python`). Files a command writes are seen by the commands after it.
PATH starts with every --bin directory, so `nsc` is the built tool. Commands run with `bash -c`,
standard error merged into standard output as a terminal shows it (standard output
line-buffered through coreutils' libstdbuf), LC_ALL=C.UTF-8, in the order of the file. Python
examples run in one interpreter per file, after `import numpy as np` and `import nsc`.

Comparison (strict by default): the shown lines and the real output, each without trailing
whitespace and trailing empty lines, must be equal line for line, except that
  * a shown line `...` (alone on its line) stands for any number of real lines (zero or more);
  * the volatile measurements of VOLATILE below (wall / CPU times, rates, resident memory) are
    replaced by a placeholder on both sides before comparing;
and the command must exit 0 (a failure's status is shown with `; echo "exit $?"`).

Markers: HTML comments (invisible on the rendered page) on the lines right before a fence:
  <!-- doc-test: long REASON -->         runs only with --long (ctest label docs_long), e.g.
                                         minutes-long runs on a 70B model;
  <!-- doc-test: needs PATH: HOW -->     runs only with --long, and only when PATH exists in the
                                         scratch directory or in a directory of
                                         $NSC_DOC_TEST_DATA (then linked in); else skipped and
                                         reported with HOW (how to make PATH);
  <!-- doc-test: setup COMMAND -->       runs COMMAND (bash, scratch directory) before the
                                         block, its output not compared: creates the inputs a
                                         reader is told how to make (a synthetic checkpoint,
                                         an edited config);
  <!-- doc-test: skip REASON -->         never runs (output that is itself a measurement, a
                                         benchmark, the test suite's own log); reported;
A ```cpp block without a file marker is a snippet: --emit-cpp writes them all into one program,
each the body of its own function (ctest docs:cpp_snippets builds and runs it).

  <!-- doc-test: file PATH -->           on a code block without commands: the block is an
                                         excerpt of the repository file PATH (its lines are
                                         lines of the file, in the same order), the file being
                                         built and run by its own test.
Every block is accounted for in the summary: run, long (not run without --long), skipped with
the reason, code blocks checked against a file, code blocks not run.

--update rewrites the shown output of every mismatching command in place with the real one,
keeping `...` elisions: the lines before the first `...` become the real first lines, the lines
after the last one the real last lines, and each segment between two `...` the real lines that
match it best. Exit status: 0 when every run command matched (or was updated), 1 otherwise.
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

# Volatile measurements: (pattern, placeholder), applied to the shown and the real lines alike.
# Only numbers that change from run to run with the machine's load belong here.
VOLATILE = [
    # durations: "(0.28 s)", "20.148 s", "95.32 ms", "12 us", "10 min 46 s", "3.5 ms"; the
    # spaces before them too (right-aligned columns of times change width)
    (re.compile(r'\s*\b\d+(?:[.,]\d+)*\s?(?:s|ms|us|µs|ns|min|sec|seconds)\b(?!\w)'), ' <time>'),
    # rates: "2849/s", "3.8 M shapes/s", "59 GFLOP/s"
    (re.compile(r'\s*\b\d+(?:[.,]\d+)*\s?(?:[kMG]\s?)?[A-Za-z]*/s\b'), ' <rate>'),
    # resident memory of /usr/bin/time -v
    (re.compile(r'(Maximum resident set size \(kbytes\): )\d+'), r'\1<rss>'),
]

MARKER = re.compile(r'^<!--\s*doc-test:\s*(long|needs|setup|skip|file)\b\s*(.*?)\s*-->\s*$')
FENCE = re.compile(r'^(\s*)(```+|~~~+)(.*)$')


def normalise(line):
    for pattern, repl in VOLATILE:
        line = pattern.sub(repl, line)
    return line


class Example:
    """One command ($ or >>>) with its shown output (lines[first:end] of the file)."""

    def __init__(self, kind, line, text, first, end, shown):
        self.kind, self.line, self.text = kind, line, text  # line: 1-based line of the prompt
        self.first, self.end, self.shown = first, end, shown  # 0-based [first, end) of the output


class Block:
    def __init__(self, start, info, body_first, body_end, markers):
        self.start, self.info = start, info  # start: 1-based line of the opening fence
        self.body_first, self.body_end = body_first, body_end
        self.markers = markers  # [(kind, argument)]
        self.examples = []

    def marker(self, kind):
        return [arg for k, arg in self.markers if k == kind]


def parse(lines):
    """The fenced blocks of a markdown file (a list of lines without newlines)."""
    blocks, i = [], 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence = m.group(2)
        j = i + 1
        while j < len(lines) and not lines[j].strip().startswith(fence[0] * len(fence)):
            j += 1
        markers, k = [], i - 1
        while k >= 0 and (lines[k].strip() == '' or MARKER.match(lines[k].strip())):
            mm = MARKER.match(lines[k].strip())
            if mm:
                markers.insert(0, (mm.group(1), mm.group(2)))
            k -= 1
        b = Block(i + 1, m.group(3).strip(), i + 1, j, markers)
        body = lines[i + 1:j]
        t = 0
        while t < len(body):
            s = body[t]
            if s.startswith('$ ') or s.startswith('>>> '):
                kind = '$' if s.startswith('$ ') else '>>>'
                text, line = s[len(kind) + 1:], i + 1 + t + 1
                t += 1
                if kind == '$':
                    while text.endswith('\\') and t < len(body):
                        text += '\n' + body[t]
                        t += 1
                else:
                    while t < len(body) and body[t].startswith('... '):
                        text += '\n' + body[t][4:]
                        t += 1
                first = t
                while t < len(body) and not body[t].startswith('$ ') and not body[t].startswith('>>> '):
                    t += 1
                b.examples.append(Example(kind, line, text, i + 1 + first, i + 1 + t, body[first:t]))
            else:
                t += 1
        blocks.append(b)
        i = j + 1
    return blocks


def clean(lines):
    out = [l.rstrip() for l in lines]
    while out and out[-1] == '':
        out.pop()
    return out


def matches(shown, real):
    """Does the real output match the shown lines (a shown `...` line: any number of lines)?"""
    s = [l if l == '...' else normalise(l) for l in shown]
    r = [normalise(l) for l in real]
    memo = {}

    def m(i, j):
        if (i, j) not in memo:
            if i == len(s):
                memo[i, j] = j == len(r)
            elif s[i] == '...':
                memo[i, j] = any(m(i + 1, k) for k in range(j, len(r) + 1))
            else:
                memo[i, j] = j < len(r) and s[i] == r[j] and m(i + 1, j + 1)
        return memo[i, j]
    return m(0, 0)


def updated(shown, real):
    """New shown lines for a mismatch: the real output, keeping the shown selection of lines.

    The shown lines (`...` matching any run of real lines for free) are aligned to the real ones
    at the least cost (equal 0; changed 1 when the two lines start with the same word; a shown
    line dropped 1; a run of real lines not shown 0.3, almost nothing before the first or after
    the last shown line). Lines equal but for volatile measurements keep their shown text. Real lines a `...` covered stay elided; other real lines not shown become `...` when
    they are 3 or more in a row (the text showed a part of the output) and none of them was
    shown elsewhere before (moved lines stay shown), else they are shown."""
    s = [l if l == '...' else normalise(l) for l in shown]
    r = [normalise(l) for l in real]
    n, m = len(s), len(r)
    INF = float('inf')
    # two lines are one line changed when they start with the same word ('layers' = 'layer')
    key = lambda l: (re.split(r'[\s,:=]+', l.strip()) or [''])[0].rstrip('s')
    # cost[run][i][j]: the least cost of aligning s[i:] to r[j:], run = the step before was an
    # insertion (a run of real lines not shown costs 0.3 to open, 0.001 a line after that)
    cost = [[[INF] * (m + 1) for _ in range(n + 1)] for _ in range(2)]
    step = [[[None] * (m + 1) for _ in range(n + 1)] for _ in range(2)]
    cost[0][n][m] = cost[1][n][m] = 0
    for i in range(n, -1, -1):
        for j in range(m, -1, -1):
            if i == n and j == m:
                continue
            for run in (0, 1):
                best, how = INF, None
                if i < n and s[i] == '...':
                    if cost[0][i + 1][j] < best:
                        best, how = cost[0][i + 1][j], 'dots_end'
                    if j < m and cost[0][i][j + 1] < best:
                        best, how = cost[0][i][j + 1], 'dots_eat'
                else:
                    if i < n and j < m and s[i] == r[j] and cost[0][i + 1][j + 1] < best:
                        best, how = cost[0][i + 1][j + 1], 'equal'
                    if i < n and j < m and key(s[i]) == key(r[j]) and 1 + cost[0][i + 1][j + 1] < best:
                        best, how = 1 + cost[0][i + 1][j + 1], 'change'
                    if i < n and 1 + cost[0][i + 1][j] < best:
                        best, how = 1 + cost[0][i + 1][j], 'delete'
                    ins = 0.001 if run or i in (0, n) else 0.3
                    if j < m and ins + cost[1][i][j + 1] < best:
                        best, how = ins + cost[1][i][j + 1], 'insert'
                cost[run][i][j], step[run][i][j] = best, how
    out, pending, i, j = [], [], 0, 0  # pending: real lines inserted, not shown yet

    shown_set = set(s)

    def flush(at_end):
        if pending:
            moved = any(normalise(l) in shown_set for l in pending)  # shown lines now elsewhere
            if len(pending) >= 3 and not moved:
                if not out or out[-1] != '...':
                    out.append('...')
            else:
                out.extend(pending)
            pending.clear()
    dots = False
    run = 0
    while (i, j) != (n, m):
        how = step[run][i][j]
        run = 1 if how == 'insert' else 0
        if how == 'dots_eat':
            dots = True
            j += 1
        elif how == 'dots_end':
            if dots:
                flush(False)
                if not out or out[-1] != '...':
                    out.append('...')
            dots = False
            i += 1
        elif how == 'insert':
            pending.append(real[j])
            j += 1
        elif how == 'delete':
            i += 1
        else:
            flush(False)
            # a line equal but for its volatile measurements keeps its shown text (no churn)
            out.append(shown[i] if how == 'equal' else real[j])
            i += 1
            j += 1
    flush(True)
    if all(l == '...' for l in out):
        return list(real)  # nothing of the shown text is left: show it all
    return out


def excerpt_of(block, file_lines):
    """Are the block's lines (without trailing whitespace) lines of the file, in the same order?"""
    it = iter(l.rstrip() for l in file_lines)
    return all(any(l.rstrip() == f for f in it) for l in block)


def diff(shown, real, where):
    """A unified diff of the shown and the real lines, compared as normalised (VOLATILE), shown raw."""
    ns, nr = [normalise(l) for l in shown], [normalise(l) for l in real]
    out = ['--- shown (%s)' % where, '+++ real']
    for group in difflib.SequenceMatcher(None, ns, nr, autojunk=False).get_grouped_opcodes(2):
        out.append('@@ -%d +%d @@' % (group[0][1] + 1, group[0][3] + 1))
        for tag, i1, i2, j1, j2 in group:
            if tag == 'equal':
                out += [' ' + l for l in real[j1:j2]]
            else:
                out += ['-' + l for l in shown[i1:i2]] + ['+' + l for l in real[j1:j2]]
    return '\n'.join(out)


PY_DRIVER = r'''
import contextlib, io, json, sys, traceback
ns = {}
exec("import numpy as np\nimport nsc", ns)
for request in sys.stdin:  # one JSON string a line: a statement; answered by one JSON line
    src = json.loads(request)
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        try:
            exec(compile(src, "<doc>", "single"), ns)
        except BaseException as e:
            print(traceback.format_exception_only(type(e), e)[-1], end="")
    sys.stdout.write(json.dumps(buf.getvalue()) + "\n")
    sys.stdout.flush()
'''


CPP_PRELUDE = """// Generated by tests/docs/run_doc_blocks.py --emit-cpp: every ```cpp block of the documentation
// without a doc-test: file marker, each the body of its own function (#line: errors name the
// markdown line); main runs them all (ctest docs:cpp_snippets).
#include <nsc/nsc.hpp>
#include <nsc/model/transformer.hpp>
#include <nsc/search/multiple_choice_knapsack.hpp>
#include <cstdint>
#include <cstdio>
#include <vector>
"""


def cpp_snippets(path):
    """The ```cpp blocks of a markdown file that no file marker ties to a source file."""
    lines = open(path, encoding='utf-8').read().split('\n')
    return [(b, lines[b.body_first:b.body_end]) for b in parse(lines)
            if b.info in ('cpp', 'c++') and not b.examples and not b.marker('file')]


def emit_cpp(files, out, repo):
    text, names = [CPP_PRELUDE], []
    for path in files:
        for b, body in cpp_snippets(path):
            name = 'doc_%s_%d' % (re.sub(r'\W', '_', os.path.basename(path)), b.start)
            names.append(name)
            text.append('namespace %s {\nvoid run() {\n#line %d "%s"\n%s\n}\n}  // namespace %s\n'
                        % (name, b.body_first + 1, os.path.relpath(os.path.abspath(path), repo), '\n'.join(body), name))
    text.append('int main() {\n%s  std::printf("%d C++ snippets ran\\n");\n}\n'
                % (''.join('  %s::run();\n' % n for n in names), len(names)))
    new = '\n'.join(text)
    if not os.path.exists(out) or open(out, encoding='utf-8').read() != new:  # no rebuild when unchanged
        with open(out, 'w', encoding='utf-8') as f:
            f.write(new)
    return 0


def make_scratch(repo, build, python_path, keep):
    work = tempfile.mkdtemp(prefix='nsc-doc-')
    for name in os.listdir(repo):
        if name in ('docs', '.git', '.venv') or name.startswith('build'):
            continue
        src = os.path.join(repo, name)
        if os.path.isdir(src):
            os.symlink(src, os.path.join(work, name))
        elif os.path.isfile(src):  # a copy: a command writing a file of that name leaves the checkout alone
            shutil.copyfile(src, os.path.join(work, name))
    os.mkdir(os.path.join(work, 'docs'))
    if build:
        os.symlink(build, os.path.join(work, 'build'))
    if python_path:
        os.makedirs(os.path.join(work, '.venv', 'bin'))
        py = os.path.join(work, '.venv', 'bin', 'python')
        with open(py, 'w') as f:
            f.write('#!/bin/sh\nPYTHONPATH="%s${PYTHONPATH:+:$PYTHONPATH}" exec /usr/bin/python3 "$@"\n' % python_path)
        os.chmod(py, 0o755)
    return work


def needs_python(example):
    return example.kind == '>>>' or '.venv/bin/python' in example.text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('files', nargs='+')
    ap.add_argument('--repo', default=os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
    ap.add_argument('--bin', action='append', default=[], help='directories put first on PATH (the built nsc)')
    ap.add_argument('--build', help='the build directory (linked as build/ in the scratch dir); '
                    'default: the parent of the first --bin')
    ap.add_argument('--python-path', help='where the Python package nsc is assembled (build/python); '
                    'without it Python examples are skipped')
    ap.add_argument('--long', action='store_true', help='also run blocks marked long / needs')
    ap.add_argument('--update', action='store_true', help='rewrite mismatching shown output in place')
    ap.add_argument('--list', action='store_true', help='list the blocks and their markers, run nothing')
    ap.add_argument('--keep', action='store_true', help='keep the scratch directory')
    ap.add_argument('--timings', action='store_true', help='print the time of every command')
    ap.add_argument('--timeout', type=float, default=1800, help='seconds per command (default 1800)')
    ap.add_argument('--emit-cpp', metavar='OUT.cpp', help='write the C++ snippets (```cpp blocks without a '
                    'file marker) as one program, each the body of its own function, and run nothing')
    a = ap.parse_args()
    if a.emit_cpp:
        return emit_cpp(a.files, a.emit_cpp, os.path.abspath(a.repo))
    repo = os.path.abspath(a.repo)
    bins = [os.path.abspath(b) for b in a.bin]
    build = os.path.abspath(a.build) if a.build else (os.path.dirname(bins[0]) if bins else None)
    python_path = os.path.abspath(a.python_path) if a.python_path else None
    if python_path and not os.path.isdir(os.path.join(python_path, 'nsc')):
        python_path = None
    data_dirs = [d for d in os.environ.get('NSC_DOC_TEST_DATA', '').split(':') if d]
    env = dict(os.environ, LC_ALL='C.UTF-8', PATH=':'.join(bins + [os.environ.get('PATH', '/usr/bin:/bin')]))
    env.pop('COLUMNS', None)
    # standard output line-buffered, as on a terminal: a message on standard error comes where
    # a terminal shows it, not before the buffered output (coreutils' stdbuf library)
    stdbuf = '/usr/libexec/coreutils/libstdbuf.so'
    if os.path.exists(stdbuf):
        env['LD_PRELOAD'] = ' '.join(filter(None, [env.get('LD_PRELOAD'), stdbuf]))
        env['_STDBUF_O'] = 'L'
    env['PYTHONUNBUFFERED'] = '1'
    failed = 0
    for path in a.files:
        failed += run_file(path, a, repo, bins, build, python_path, data_dirs, env)
    return 1 if failed else 0


def run_file(path, a, repo, bins, build, python_path, data_dirs, env):
    lines = open(path, encoding='utf-8').read().split('\n')
    blocks = parse(lines)
    rel = os.path.relpath(path)
    if rel.startswith('..'):
        rel = path
    counts = dict(run=0, passed=0, failed=0, updated=0, long=0, skipped=0, files=0, cpp=0, code=0)
    notes, edits = [], []  # edits: (first, end, new lines)
    if a.list:
        for b in blocks:
            what = ('%d commands' % len(b.examples)) if b.examples else 'code'
            print('%s:%d ```%s %s %s' % (rel, b.start, b.info, what, ' '.join('[%s %s]' % m for m in b.markers)))
        return 0
    work = make_scratch(repo, build, python_path, a.keep)
    py = None
    t_file = time.time()
    try:
        for b in blocks:
            where = '%s:%d' % (rel, b.start)
            if not b.examples:
                for f in b.marker('file'):
                    counts['files'] += 1
                    fp = os.path.join(repo, f)
                    if not os.path.isfile(fp) or not excerpt_of(lines[b.body_first:b.body_end],
                                                                open(fp, encoding='utf-8').read().split('\n')):
                        counts['failed'] += 1
                        print('FAIL %s: the code block is not an excerpt of %s (its lines, in order)' % (where, f))
                if not b.marker('file') and b.info in ('cpp', 'c++'):
                    counts['cpp'] += 1
                elif not b.marker('file'):
                    counts['code'] += 1
                    notes.append('%s: ```%s code block, not run (no doc-test: file marker)' % (where, b.info))
                continue
            if b.marker('skip'):
                counts['skipped'] += len(b.examples)
                notes.append('%s: skipped (%s)' % (where, '; '.join(b.marker('skip'))))
                continue
            if (b.marker('long') or b.marker('needs')) and not a.long:
                counts['long'] += len(b.examples)
                why = b.marker('long') + ['needs ' + n for n in b.marker('needs')]
                notes.append('%s: long, runs with --long / ctest -L docs_long (%s)' % (where, '; '.join(why)))
                continue
            missing = []
            for n in b.marker('needs'):
                p, _, how = n.partition(':')
                p = p.strip()
                if not os.path.exists(os.path.join(work, p)):
                    for d in data_dirs:
                        if os.path.exists(os.path.join(d, p)):
                            os.symlink(os.path.join(d, p), os.path.join(work, p))
                            break
                    else:
                        missing.append('%s missing: %s' % (p, how.strip()))
            if missing:
                counts['skipped'] += len(b.examples)
                notes.append('%s: skipped (%s; or put it in a directory of $NSC_DOC_TEST_DATA)' % (where, '; '.join(missing)))
                continue
            if any(needs_python(e) for e in b.examples) and not python_path:
                counts['skipped'] += len(b.examples)
                notes.append('%s: skipped (the Python package is not built: configure with -DNSC_BUILD_PYTHON=ON)' % where)
                continue
            for s in b.marker('setup'):
                r = subprocess.run(['bash', '-c', s], cwd=work, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=a.timeout)
                if r.returncode:
                    counts['failed'] += len(b.examples)
                    print('FAIL %s: setup `%s` exited %d:\n%s' % (where, s, r.returncode, r.stdout))
                    break
            else:
                for e in b.examples:
                    t0 = time.time()
                    if e.kind == '$':
                        r = subprocess.run(['bash', '-c', e.text], cwd=work, env=env, stdout=subprocess.PIPE,
                                           stderr=subprocess.STDOUT, text=True, errors='replace', timeout=a.timeout)
                        out, status = r.stdout, r.returncode
                    else:
                        if py is None:
                            penv = dict(env, PYTHONPATH=python_path, PYTHONDONTWRITEBYTECODE='1')
                            py = subprocess.Popen(['/usr/bin/python3', '-c', PY_DRIVER], cwd=work, env=penv,
                                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                        py.stdin.write(json.dumps(e.text) + '\n')
                        py.stdin.flush()
                        raw = py.stdout.readline()
                        out, status = (json.loads(raw) if raw else 'python driver died\n'), 0 if raw else 1
                    dt = time.time() - t0
                    counts['run'] += 1
                    real = clean(out.split('\n'))
                    shown = clean(e.shown)
                    if a.timings:
                        print('%7.2f s  %s:%d  %s' % (dt, rel, e.line, e.text.split('\n')[0][:100]))
                    if status == 0 and matches(shown, real):
                        counts['passed'] += 1
                        continue
                    if a.update and status == 0:
                        new = updated(shown, real)
                        # keep the trailing blank lines of the shown output, if any
                        tail = len(e.shown) - len(shown)
                        edits.append((e.first, e.end, new + [''] * tail))
                        counts['updated'] += 1
                        print('UPDATED %s:%d  %s' % (rel, e.line, e.text.split('\n')[0]))
                        continue
                    counts['failed'] += 1
                    print('FAIL %s:%d (block at line %d)\n$ %s' % (rel, e.line, b.start, e.text))
                    if status:
                        print('exit status %d (show it with `; echo "exit $?"` if intended)' % status)
                    if not matches(shown, real):
                        print(diff(shown, real, '%s:%d' % (rel, e.first + 1)))
    finally:
        if py is not None:
            py.kill()
            py.wait()
        if a.keep:
            print('scratch directory kept: %s' % work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    if edits:
        cur = open(path, encoding='utf-8').read().split('\n')
        if cur != lines:
            print('%s changed while running: not updated' % rel)
            counts['failed'] += counts['updated']
        else:
            for first, end, new in sorted(edits, reverse=True):
                cur[first:end] = new
            with open(path, 'w', encoding='utf-8') as f:
                f.write('\n'.join(cur))
    for n in notes:
        print('  ' + n)
    total = sum(len(b.examples) for b in blocks)
    print('%s: %d commands in %d blocks: %d run (%d passed, %d updated, %d failed), %d long, %d skipped; '
          '%d code blocks checked against files, %d C++ snippets (built and run by ctest docs:cpp_snippets), '
          '%d code blocks not run; %.1f s'
          % (rel, total, sum(1 for b in blocks if b.examples), counts['run'], counts['passed'], counts['updated'],
             counts['failed'], counts['long'], counts['skipped'], counts['files'], counts['cpp'], counts['code'],
             time.time() - t_file))
    return counts['failed']


if __name__ == '__main__':
    sys.exit(main())
