"""The web page of ``barley serve``: type a text (or paste tokenized text or CoNLL-U, or open a file),
parse it, see the trees and the CoNLL-U, download it. Each sentence gets a box: its text once, its
arc diagram (:mod:`barley.render.svg`, scrolling sideways in its box when wider than the page;
``compact`` on request; hovering a word lights its head and dependents), links to save the
drawing as SVG or PNG, and a table of its CoNLL-U (sortable by any column; shown with ``tables``);
``enhanced graph`` asks for the DEPS and draws them under the words. It opens on a text box holding an example
sentence, in the first input format the default model reads (text, for a model with a tokenizer);
the formats offered are those of the model chosen (``GET /models``). Self-contained: inline CSS
and script, system fonts; it talks only to the service it came from (``POST /parse`` with
``draw``, ``GET /models``)."""

from __future__ import annotations

import base64
import hashlib
import html
import json

from barley.render import svg
from barley.render.html import CSS

EXAMPLE_WORDS = [("A", "DET"), ("hearing", "NOUN"), ("is", "AUX"), ("scheduled", "VERB"), ("on", "ADP"),
                 ("the", "DET"), ("issue", "NOUN"), ("today", "NOUN"), (".", "PUNCT")]
EXAMPLE_TEXT = "A hearing is scheduled on the issue today."
EXAMPLES = {
    "text": EXAMPLE_TEXT + "\n",
    "sentences": EXAMPLE_TEXT + "\n",
    "tokenized": " ".join(form for form, _ in EXAMPLE_WORDS) + "\n",
    "conllu": "\n".join(["# sent_id = example-1", f"# text = {EXAMPLE_TEXT}",
                         *("\t".join([str(i), form, form.lower(), tag, "_", "_", "_", "_", "_", "_"])
                           for i, (form, tag) in enumerate(EXAMPLE_WORDS, start=1)), "", ""]),
}
"""The example of each input format (the same sentence), shown in the box when that format is chosen."""

PLACEHOLDERS = {"text": "Type or paste a text: paragraphs separated by blank lines.",
                "sentences": "One sentence per line, as it is written: each line is tokenized, never split.",
                "tokenized": "One sentence per line, tokens separated by spaces.",
                "conllu": "CoNLL-U: HEAD and DEPREL may be _"}

STYLE = f"""{CSS}
textarea {{ width: 100%; height: 12em; font-family: monospace; font-size: 12px; }}
.bar > * {{ margin-right: .8em; }}
#error {{ color: #c0392b; white-space: pre-wrap; }}
#status {{ color: #777; }}
.tree {{ margin: 0 0 1.6em 0; border-top: 1px solid #ddd; padding-top: .4em; }}
.tree h3 {{ font-size: 1em; font-weight: normal; margin: .3em 0; overflow-wrap: anywhere; }}
.tree h3 .id {{ color: #777; font-size: .85em; margin-left: .6em; }}
.tree .links a {{ margin-right: 1em; font-size: .9em; }}
.scroll {{ overflow-x: auto; max-width: 100%; }}
table.conllu {{ border-collapse: collapse; font-size: 12px; margin: .4em 0; }}
table.conllu th, table.conllu td {{ border: 1px solid #ddd; padding: 1px 6px; text-align: left; white-space: nowrap; }}
table.conllu th {{ background: #f2f2f2; cursor: pointer; user-select: none; }}
#trees:not(.tables) .table {{ display: none; }}
svg .focus path {{ stroke: #e67e22; stroke-width: 2.6; }}
svg .focus path[fill]:not([fill="none"]) {{ fill: #e67e22; }}
svg text.word.focus {{ fill: #e67e22; font-weight: bold; }}
"""

BODY = f"""<h1>barley: parse and see the trees</h1>
<form id="form">
<p>Type a text, or paste tokenized text or CoNLL-U (choose the input below), or open a file:
<input type="file" id="file" accept=".conllu,.conll,.txt"> <button type="button" id="example">example</button></p>
<textarea id="data" name="data" spellcheck="false" placeholder="{html.escape(PLACEHOLDERS["text"])}">\
{html.escape(EXAMPLES["text"])}</textarea>
<p class="bar"><label>model <select id="model"></select></label>
<label>input <select id="input"></select></label>
<button type="submit" id="parse">parse</button> <span id="status">Ctrl+Enter parses</span></p>
<p class="bar"><label><input type="checkbox" id="compact"> compact</label>
<label><input type="checkbox" id="tables"> tables</label>
<label><input type="checkbox" id="enhanced"> enhanced graph</label>
<label><input type="checkbox" id="confidence"> confidence</label>
<span id="hint">hover a word to see its head and dependents; click a table's heading to sort it</span></p>
</form>
<div id="error"></div>
<div id="trees"></div>
<div id="output" hidden><p><a id="download" download="parsed.conllu" href="#">download the CoNLL-U</a></p>
<pre id="conllu"></pre></div>
"""

SCRIPT = f"""
const examples = {json.dumps(EXAMPLES)};
const placeholders = {json.dumps(PLACEHOLDERS)};
const $ = id => document.getElementById(id);
const formats = {{}};  // the input formats each model reads
let downloadUrl = null;
// the box shows the example of the format chosen, unless the user has typed something else
const showsExample = () => Object.values(examples).includes($('data').value) || !$('data').value;
function chooseInput(format) {{
  const example = showsExample();
  $('input').value = format;
  $('data').placeholder = placeholders[format];
  if (example) $('data').value = examples[format];
}}
function offerInputs() {{
  const previous = $('input').value;
  $('input').replaceChildren();
  for (const format of formats[$('model').value]) {{
    const option = document.createElement('option');
    option.value = option.textContent = format;
    $('input').appendChild(option);
  }}
  chooseInput(formats[$('model').value].includes(previous) ? previous : formats[$('model').value][0]);
}}
fetch('/models').then(r => r.json()).then(info => {{
  for (const model of info.models) {{
    formats[model.name] = model.input_formats;
    const option = document.createElement('option');
    option.value = model.name;
    option.textContent = model.name + (model.system ? ' (' + model.system + ')' : '');
    option.selected = model.default;
    $('model').appendChild(option);
  }}
  offerInputs();
  $('form').requestSubmit();  // the example parsed as the page opens: its trees show what the page does
}});
$('model').onchange = offerInputs;
$('input').onchange = () => chooseInput($('input').value);
$('example').onclick = () => {{ $('data').value = examples[$('input').value]; }};
$('file').onchange = () => {{
  const file = $('file').files[0];
  if (file) file.text().then(text => {{ $('data').value = text; }});
}};
$('data').onkeydown = event => {{
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {{ event.preventDefault(); $('form').requestSubmit(); }}
}};
// what a parse shows goes as soon as another is asked for: a failed parse never leaves the trees of
// the one before on the page, where they could be taken for its answer
function clearAnswer() {{
  $('trees').replaceChildren();
  $('conllu').textContent = '';
  $('output').hidden = true;
  $('download').href = '#';
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = null;
}}
// one box per sentence: its text once (and its sent_id), the drawing scrolling in its own box, links to
// download it as SVG or PNG, and its table (shown with "tables"), sortable by any column
function treeBox(answer, k, drawing) {{
  const sentence = answer.sentences[k];
  const box = document.createElement('div');
  box.className = 'tree';
  const heading = document.createElement('h3');
  const text = sentence.comments.find(c => /^# text\\s*=/.test(c));
  heading.textContent = text ? text.replace(/^# text\\s*=\\s*/, '') : sentence.tokens.map(t => t[1]).join(' ');
  const id = document.createElement('span');
  id.className = 'id';
  id.textContent = sentence.sent_id || ('sentence ' + (k + 1));
  heading.appendChild(id);
  const scroll = document.createElement('div');
  scroll.className = 'scroll';
  scroll.insertAdjacentHTML('beforeend', drawing);
  const links = document.createElement('p');
  links.className = 'links';
  const name = (sentence.sent_id || ('sentence-' + (k + 1))).replace(/[^A-Za-z0-9._-]+/g, '_');
  for (const [label, save] of [['SVG', saveSvg], ['PNG', savePng]]) {{
    const link = document.createElement('a');
    link.href = '#'; link.textContent = 'download ' + label; link.className = label.toLowerCase();
    link.onclick = event => {{ event.preventDefault(); save(scroll.querySelector('svg'), name); }};
    links.appendChild(link);
  }}
  const table = document.createElement('div');
  table.className = 'table scroll';
  table.appendChild(conlluTable(answer.columns, sentence.tokens));
  box.append(heading, scroll, links, table);
  return box;
}}
function conlluTable(columns, rows) {{
  const table = document.createElement('table');
  table.className = 'conllu';
  const head = table.createTHead().insertRow();
  const body = table.createTBody();
  for (const row of rows) {{
    const line = body.insertRow();
    for (const field of row) line.insertCell().textContent = field;
  }}
  columns.forEach((column, c) => {{
    const cell = document.createElement('th');
    cell.textContent = column;
    let ascending = true;
    cell.onclick = () => {{  // IDs and numbers as numbers (a range 1-2 before 1, an empty node 8.1 after 8), the rest as text
      const key = value => {{
        const id = /^(\\d+)(?:([-.])(\\d+))?$/.exec(value);
        if (!id) return [1, 0, value];
        return [0, +id[1] + (id[2] === '.' ? +id[3] / 1000 : 0) - (id[2] === '-' ? 1e-4 : 0), ''];
      }};
      const sorted = [...body.rows].sort((a, b) => {{
        const x = key(a.cells[c].textContent), y = key(b.cells[c].textContent);
        const order = x[0] - y[0] || x[1] - y[1] || x[2].localeCompare(y[2]);
        return ascending ? order : -order;
      }});
      ascending = !ascending;
      body.append(...sorted);
    }};
    head.appendChild(cell);
  }});
  return table;
}}
function download(blob, name) {{
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url; link.download = name;
  document.body.appendChild(link); link.click(); link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}}
const svgBlob = svg => new Blob([new XMLSerializer().serializeToString(svg)], {{type: 'image/svg+xml'}});
function saveSvg(svg, name) {{ download(svgBlob(svg), name + '.svg'); }}
function savePng(svg, name) {{  // drawn at twice its size, on white
  const image = new Image();
  const url = URL.createObjectURL(svgBlob(svg));
  image.onload = () => {{
    const canvas = document.createElement('canvas');
    canvas.width = 2 * svg.width.baseVal.value; canvas.height = 2 * svg.height.baseVal.value;
    const context = canvas.getContext('2d');
    context.fillStyle = 'white'; context.fillRect(0, 0, canvas.width, canvas.height);
    context.drawImage(image, 0, 0, canvas.width, canvas.height);
    URL.revokeObjectURL(url);
    canvas.toBlob(blob => download(blob, name + '.png'), 'image/png');
  }};
  image.src = url;
}}
// hovering a word lights its arcs (to its head and to its dependents) and those words
function focus(word, on) {{
  const svg = word.closest('svg.barley-tree');
  const id = word.dataset.id;
  const near = new Set([id]);
  for (const arc of svg.querySelectorAll(`g[data-head="${{id}}"], g[data-dependent="${{id}}"]`)) {{
    arc.classList.toggle('focus', on);
    near.add(arc.dataset.head); near.add(arc.dataset.dependent);
  }}
  for (const other of near) svg.querySelector(`text.word[data-id="${{other}}"]`)?.classList.toggle('focus', on);
}}
$('trees').addEventListener('mouseover', event => {{
  const word = event.target.closest('text.word'); if (word) focus(word, true);
}});
$('trees').addEventListener('mouseout', event => {{
  const word = event.target.closest('text.word'); if (word) focus(word, false);
}});
$('tables').onchange = () => $('trees').classList.toggle('tables', $('tables').checked);
$('compact').onchange = $('enhanced').onchange = $('confidence').onchange = () => $('form').requestSubmit();
let asked = 0;  // the parses asked for: only the answer to the last one is shown
$('form').onsubmit = async event => {{
  event.preventDefault();
  const mine = ++asked;
  clearAnswer();
  $('error').textContent = ''; $('status').textContent = 'parsing…';
  const started = performance.now();
  let response, answer;
  try {{
    const fields = {{data: $('data').value, input: $('input').value, model: $('model').value, draw: true,
                    compact: $('compact').checked, enhanced: $('enhanced').checked,
                    confidence: $('confidence').checked}};
    response = await fetch('/parse', {{method: 'POST', headers: {{'Content-Type': 'application/json'}},
      body: JSON.stringify(fields)}});
    answer = await response.json();
  }} catch (failure) {{  // no answer, or one that is not JSON
    response = null;
    answer = {{error: 'no answer from the service (' + failure.message + ')'}};
  }}
  if (mine !== asked) return;
  $('status').textContent = '';
  if (!response || !response.ok) {{ $('error').textContent = answer.error; return; }}
  answer.svg.forEach((drawing, k) => $('trees').appendChild(treeBox(answer, k, drawing)));
  $('conllu').textContent = answer.result;
  downloadUrl = URL.createObjectURL(new Blob([answer.result], {{type: 'text/plain;charset=utf-8'}}));
  $('download').href = downloadUrl;
  $('output').hidden = false;
  const count = answer.sentences.length;
  $('status').textContent = count + (count === 1 ? ' sentence' : ' sentences') + ' parsed with ' + answer.model + ' in '
    + Math.round(performance.now() - started) + ' ms';
}};
"""

PAGE = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>barley</title><style>{STYLE}</style></head>
<body>{BODY}<script>{SCRIPT}</script></body></html>
"""


def _hash_source(text: str) -> str:
    """The CSP source that allows exactly this inline script or style (a hash-source of CSP Level 3)."""
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii") + "'"


CONTENT_SECURITY_POLICY = "; ".join([
    "default-src 'none'",  # nothing loads but what is allowed below
    f"script-src {_hash_source(SCRIPT)}",  # the page's own script, byte for byte
    # the page's own style sheet, and the style attribute each drawing carries (svg.STYLE, a constant)
    f"style-src {_hash_source(STYLE)} 'unsafe-hashes' {_hash_source(svg.STYLE)}",
    "connect-src 'self'",  # the script talks to this service only (GET /models, POST /parse)
    "img-src blob:",  # a drawing read back as an image, to be saved as PNG
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
])
"""The Content-Security-Policy of every answer: the page runs its own script and style and
nothing else; answers that are not the page need nothing at all."""
