"""The web page of ``barley serve``: type a text (or paste tokenized text or CoNLL-U, or open a file),
parse it, see the trees and the CoNLL-U, download it. It opens on a text box holding an example
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
let asked = 0;  // the parses asked for: only the answer to the last one is shown
$('form').onsubmit = async event => {{
  event.preventDefault();
  const mine = ++asked;
  clearAnswer();
  $('error').textContent = ''; $('status').textContent = 'parsing…';
  const started = performance.now();
  let response, answer;
  try {{
    const fields = {{data: $('data').value, input: $('input').value, model: $('model').value, draw: true}};
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
  answer.svg.forEach((drawing, k) => {{
    const box = document.createElement('div');
    box.className = 'drawing';
    const heading = document.createElement('h3');
    heading.textContent = answer.sentences[k].sent_id || ('sentence ' + (k + 1));
    box.appendChild(heading);
    box.insertAdjacentHTML('beforeend', drawing);
    $('trees').appendChild(box);
  }});
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
    "base-uri 'none'", "form-action 'none'", "frame-ancestors 'none'",
])
"""The Content-Security-Policy of every answer: the page runs its own script and style and
nothing else; answers that are not the page need nothing at all."""
