"""Print docs/options.md, the page of training options, from their declarations (:mod:`barley.options`).

    python scripts/options_page.py > docs/options.md

``tests/commands/test_options.py`` checks that the committed page is the one this prints.
"""

from barley.options import markdown

if __name__ == "__main__":
    print(markdown(), end="")
