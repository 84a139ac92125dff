"""Exercises inside notebooks: find the check cells and their folded solutions, write student versions, run a
notebook cell by cell in a kernel, and grade a folder of completed notebooks.

A **check cell** is a code cell whose last line is ``check("NN.M", answer)``; its **solution** is the markdown cell
right after it, ``<details><summary>Solution</summary> … </details>`` (答案 in the Chinese editions), whose
```` ```python ```` blocks, run in place of the answer lines, give the right answer. ``tests/test_exercises.py``
runs every solution through its check this way.

Command line (``make student-notebooks`` and ``make grade`` call it)::

    python -m dpteach.exercises.notebooks student notebooks/ _build/student/
    python -m dpteach.exercises.notebooks grade submissions/ --csv grades.csv

``student`` copies each notebook without its folded solutions and outputs. ``grade`` executes every notebook of a
folder (any depth) in a fresh kernel, cell by cell, going on after a cell fails, and collects the verdict of each
check that ran: a table with a row per notebook and a column per exercise, and the number right.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pandas as pd
from jupyter_client.manager import KernelManager
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from dpteach.course import course_notebooks

CHECK_LINE = re.compile(r'^check\("((?:\d\d|A\d)\.\d+)"', re.MULTILINE)
SOLUTION_SUMMARIES = ("Solution", "答案")
SOLUTION_START = re.compile(r"^<details><summary>(?:" + "|".join(SOLUTION_SUMMARIES) + r")")
PYTHON_BLOCK = re.compile(r"```python\n(.*?)```", re.DOTALL)
RECORDED_PROBE = ("import json as _json\nfrom dpteach.exercises import RECORDED as _RECORDED\n"
                  "print(_json.dumps({_k: _v.status for _k, _v in _RECORDED.items()}))")


@dataclass(frozen=True)
class CheckCell:
    """One exercise in a notebook: its key, the index of its check cell, the check line and the solution's code."""

    key: str
    index: int
    check_line: str
    solution: str


def is_solution(cell: Mapping) -> bool:
    return cell["cell_type"] == "markdown" and bool(SOLUTION_START.match("".join(cell["source"]).lstrip()))


def check_cells(nb: nbformat.NotebookNode) -> list[CheckCell]:
    """Every check cell of ``nb`` with its folded solution's Python code ('' when it has none)."""
    found = []
    for index, cell in enumerate(nb.cells):
        source = "".join(cell.source)
        keys = CHECK_LINE.findall(source) if cell.cell_type == "code" else []
        if not keys:
            continue
        if len(keys) > 1:
            raise ValueError(f"cell {index} holds {len(keys)} checks ({keys}); a check cell holds one")
        line = next(line for line in source.splitlines() if CHECK_LINE.match(line))
        after = nb.cells[index + 1] if index + 1 < len(nb.cells) else None
        code = "\n".join(PYTHON_BLOCK.findall("".join(after.source))) if after and is_solution(after) else ""
        found.append(CheckCell(keys[0], index, line, code))
    return found


def student_version(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """A copy of ``nb`` without folded solutions, outputs, execution counts or saved widget state."""
    copy = nbformat.from_dict(json.loads(json.dumps(nb)))
    copy.cells = [cell for cell in copy.cells if not is_solution(cell)]
    for cell in copy.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    copy.metadata.pop("widgets", None)
    return copy


class Kernel:
    """A live kernel running source code one cell at a time in a notebook's folder (see :func:`kernel`)."""

    def __init__(self, client: NotebookClient) -> None:
        self.client = client

    def run(self, source: str) -> tuple[str, str | None]:
        """Run ``source``; return what it printed and, if it raised, the error's name and message."""
        cell = nbformat.v4.new_code_cell(source)
        try:
            self.client.execute_cell(cell, 0)
        except CellExecutionError as error:
            return _stdout(cell), f"{error.ename}: {error.evalue}"
        except CellTimeoutError:
            return _stdout(cell), f"the cell ran longer than {self.client.timeout} s and was interrupted"
        return _stdout(cell), None

    def recorded(self) -> dict[str, str]:
        """The status of every check that has run in this kernel, by exercise key."""
        printed, error = self.run(RECORDED_PROBE)
        if error is not None:
            raise RuntimeError(f"could not read the recorded verdicts: {error}")
        return json.loads(printed.strip().splitlines()[-1])


def _stdout(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.get("name") == "stdout")


@contextmanager
def kernel(notebook: Path, images_dir: Path, timeout: int = 600) -> Iterator[Kernel]:
    """A fresh kernel whose working directory is ``notebook``'s folder and whose figures go to ``images_dir``."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell()])  # the slot each run's cell takes
    with tempfile.TemporaryDirectory() as sockets:
        manager = KernelManager(kernel_name="python3", transport="ipc", ip=str(Path(sockets) / "kernel"))
        client = NotebookClient(nb, km=manager, timeout=timeout, allow_errors=False, interrupt_on_timeout=True,
                                resources={"metadata": {"path": str(notebook.parent)}})
        env = {**os.environ, "DPTEACH_IMAGES_DIR": str(images_dir)}
        # cleanup_kc: nbclient stops its channels and the kernel on the way out, as when it owns the manager
        with client.setup_kernel(env=env, cleanup_kc=True):
            yield Kernel(client)


def grade_notebook(path: Path, timeout: int = 600) -> dict[str, str]:
    """Run a completed notebook top to bottom (going on after errors) and return each check's status; a check
    cell that never gave a verdict (it failed before its check, or the check line was removed) is "not run"."""
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory() as images, kernel(path, Path(images), timeout) as live:
        for cell in nb.cells:
            if cell.cell_type == "code":
                live.run("".join(cell.source))
        recorded = live.recorded()
    return {**{c.key: "not run" for c in check_cells(nb)}, **recorded}


def grade_folder(folder: Path, timeout: int = 600) -> pd.DataFrame:
    """A row per notebook under ``folder``, a column per exercise (status, '—' where no check ran), and the
    number right."""
    rows = {}
    for path in sorted(folder.rglob("*.ipynb")):
        if ".ipynb_checkpoints" not in path.parts:
            rows[str(path.relative_to(folder).with_suffix(""))] = grade_notebook(path, timeout)
    table = pd.DataFrame.from_dict(rows, orient="index").reindex(columns=sorted({k for r in rows.values() for k in r}))
    table = table.fillna("—")
    table["right"] = (table == "right").sum(axis=1)
    table.index.name = "notebook"
    return table


def markdown_table(table: pd.DataFrame) -> str:
    """``table`` as a Markdown table, its index as the first column."""
    header = [table.index.name or "", *map(str, table.columns)]
    rows = [[str(index), *map(str, values)] for index, values in zip(table.index, table.to_numpy(), strict=True)]
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def write_student_versions(source: Path, target: Path) -> list[Path]:
    """Student versions of every numbered notebook in ``source``, written to ``target``."""
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for path in course_notebooks(source):
        out = target / path.name
        nbformat.write(student_version(nbformat.read(path, as_version=4)), out)
        written.append(out)
    return written


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m dpteach.exercises.notebooks", description=__doc__.split("\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    student = commands.add_parser("student", help="write student versions (solutions and outputs removed)")
    student.add_argument("source", type=Path)
    student.add_argument("target", type=Path)
    grade = commands.add_parser("grade", help="grade a folder of completed notebooks")
    grade.add_argument("folder", type=Path)
    grade.add_argument("--csv", type=Path, help="also write the table as CSV")
    grade.add_argument("--timeout", type=int, default=600, help="seconds a cell may run (default 600)")
    args = parser.parse_args(argv)
    if args.command == "student":
        for path in write_student_versions(args.source, args.target):
            print(path)
        return
    if not args.folder.is_dir():
        sys.exit(f"folder must be a directory of completed notebooks, got {args.folder}")
    table = grade_folder(args.folder, args.timeout)
    print(markdown_table(table))
    if args.csv:
        table.to_csv(args.csv)


if __name__ == "__main__":
    main()
