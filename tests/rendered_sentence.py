"""A sentence to draw (SENTENCE) and read_back, the heads read off a terminal drawing: for the tests that draw trees."""

from __future__ import annotations

from barley.render import text

HEAD_GLYPHS = set(text.HEAD_GLYPH.values())
DEPENDENT_GLYPHS = set(text.DEPENDENT_GLYPH.values())
STARTS = {"╭", "┬", "┍", "┯"}
ENDS = {"╰", "┴", "┕", "┷"}


def read_back(drawing_text: str) -> list[int]:
    """The heads a person reads off the terminal drawing: follow each lane from its top
    branch to its bottom branch; the heavy branch is the head, the light ones its dependents."""
    lines = [line for line in drawing_text.splitlines() if not line.startswith("#")]
    width = lines[0].index(" (root)")
    grid = [line[:width].ljust(width) for line in lines]
    heads = [-1] * len(grid)
    for column in range(0, width, 2):
        head, dependents = None, []
        for row, line in enumerate(grid):
            glyph = line[column]
            if glyph in HEAD_GLYPHS:
                head = row
            elif glyph in DEPENDENT_GLYPHS:
                dependents.append(row)
            elif glyph not in "│─ ":
                raise AssertionError(f"unexpected glyph {glyph!r} in row {row}")
            if glyph in ENDS:
                assert head is not None, f"a lane ends in row {row} without a head"
                for dependent in dependents:
                    assert heads[dependent] == -1, f"word {dependent} is drawn with two heads"
                    heads[dependent] = head
                head, dependents = None, []
            # a branch runs from its glyph to the words without a gap
            if glyph in HEAD_GLYPHS | DEPENDENT_GLYPHS:
                assert " " not in line[column + 1:width], f"broken branch in row {row}: {line!r}"
    return heads


SENTENCE = """# sent_id = s1
# text = A hearing is scheduled on the issue today.
1\tA\ta\tDET\t_\t_\t2\tdet\t_\t_
2\thearing\thearing\tNOUN\t_\t_\t4\tnsubj\t_\t_
3\tis\tbe\tAUX\t_\t_\t4\taux\t_\t_
4\tscheduled\tschedule\tVERB\t_\t_\t0\troot\t_\t_
5\ton\ton\tADP\t_\t_\t2\tnmod\t_\t_
6\tthe\tthe\tDET\t_\t_\t7\tdet\t_\t_
7\tissue\tissue\tNOUN\t_\t_\t5\tpobj\t_\t_
8\ttoday\ttoday\tNOUN\t_\t_\t4\tobl:tmod\t_\t_
9\t.\t.\tPUNCT\t_\t_\t4\tpunct\t_\t_

"""
