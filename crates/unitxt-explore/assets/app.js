// unitxt-rs explorer. Plain JavaScript, no dependencies. Every catalog or instance string is put
// into the page with textContent (or as an attribute value), never as HTML.
"use strict";

const $ = (id) => document.getElementById(id);
const KNOWN = ["card", "template", "system_prompt", "format", "augmentor", "num_demos", "demos_pool_size"];
const state = { view: "preview", offset: 0, extras: [], tasks: [], lastInstances: [], evalRows: [], judged: new Map(), sortKey: null, sortDir: 1 };

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
  }
  return e;
}

async function api(path, body) {
  const opts = body === undefined ? {} : { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) };
  const r = await fetch(path, opts);
  let data;
  try { data = await r.json(); } catch (e) { data = { error: `HTTP ${r.status}: the answer is not JSON` }; }
  if (!r.ok) {
    const err = new Error(data.error || `HTTP ${r.status}`);
    err.location = data.location;
    throw err;
  }
  return data;
}

function showError(e) {
  const box = $("error");
  box.replaceChildren();
  if (!e) { box.hidden = true; return; }
  box.hidden = false;
  box.append(el("strong", {}, "Error: "), el("pre", {}, e.message));
  const loc = e.location || {};
  const parts = Object.entries(loc).filter(([, v]) => v !== null && v !== undefined);
  if (parts.length) box.append(el("div", { class: "location" }, "at " + parts.map(([k, v]) => `${k}: ${v}`).join(", ")));
}

function setStatus(t) { $("status").textContent = t; }

// ---- recipe string <-> selections ------------------------------------------------------------

// Splits "k=v,k2=v2[a=b,c=d]" at the top-level commas and '='.
function splitRecipe(text) {
  const out = [];
  let depth = 0, cur = "";
  for (const ch of text) {
    if (ch === "[" || ch === "(" || ch === "{") depth++;
    if (ch === "]" || ch === ")" || ch === "}") depth--;
    if (ch === "," && depth === 0) { out.push(cur); cur = ""; } else cur += ch;
  }
  if (cur.trim()) out.push(cur);
  return out.map((p) => {
    const i = p.indexOf("=");
    return i < 0 ? [p.trim(), null] : [p.slice(0, i).trim(), p.slice(i + 1).trim()];
  }).filter(([k]) => k);
}

function maxKey() { return `max_${$("split").value}_instances`; }

function buildRecipe() {
  const parts = [];
  for (const k of KNOWN) {
    const v = $(k).value.trim();
    if (!v || $(k).disabled) continue;
    if (k === "num_demos" && v === "0" && !$("demos_pool_size").value) continue;
    parts.push(`${k}=${v}`);
  }
  const m = $("max_instances").value.trim();
  if (m) parts.push(`${maxKey()}=${m}`);
  for (const [k, v] of state.extras) parts.push(v === null ? k : `${k}=${v}`);
  return parts.join(",");
}

function updateRecipeText() {
  $("recipe").value = buildRecipe();
  renderReproduce();
}

function ensureOption(sel, value, label) {
  if (!value) return;
  if (![...sel.options].some((o) => o.value === value)) sel.append(el("option", { value }, label || value));
  sel.value = value;
}

// Sets the selections from a recipe string (the card's task and templates are loaded).
async function applyRecipeText(text) {
  const pairs = splitRecipe(text);
  state.extras = [];
  const got = {};
  for (const [k, v] of pairs) {
    if (KNOWN.includes(k)) got[k] = v;
    else if (/^max_\w+_instances$/.test(k) && k === maxKey()) got.max = v;
    else state.extras.push([k, v]);
  }
  const card = got.card || "";
  if (card) {
    let task = "";
    try {
      const a = await api("/api/artifact/" + encodeURIComponent(card.split("[")[0]));
      const t = a.artifact && a.artifact.task;
      if (typeof t === "string") task = t.split("[")[0];
    } catch (e) { /* an unknown card: the preview shows the engine's error */ }
    if (task) {
      ensureOption($("task"), task);
      await loadCards(task);
    }
    ensureOption($("card"), card);
    await loadTemplates(card, task);
  } else {
    $("card").value = "";
  }
  ensureOption($("template"), got.template || "");
  if (!got.template) $("template").value = "";
  for (const k of ["system_prompt", "format", "augmentor"]) {
    if (got[k]) ensureOption($(k), got[k]); else $(k).value = "";
  }
  $("num_demos").value = got.num_demos || "0";
  $("demos_pool_size").value = got.demos_pool_size || "";
  $("max_instances").value = got.max || "";
  updateAugmentor();
  $("recipe").value = text;
  renderReproduce();
}

// ---- option lists ------------------------------------------------------------------------------

function fillSelect(sel, placeholder, groups) {
  sel.replaceChildren(el("option", { value: "" }, placeholder));
  for (const [label, items] of groups) {
    const parent = label ? el("optgroup", { label }) : sel;
    for (const it of items) parent.append(el("option", { value: it.value }, it.label || it.value));
    if (label && items.length) sel.append(parent);
  }
}

async function loadTasks() {
  state.tasks = await api("/api/tasks");
  const groups = new Map();
  for (const t of state.tasks) {
    const g = t.group || "(top level)";
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g).push({ value: t.name, label: `${t.name.slice(6)} (${t.cards} cards)` });
  }
  fillSelect($("task"), "(choose a task)", [...groups.entries()].sort());
}

async function loadOptions() {
  const o = await api("/api/options");
  fillSelect($("system_prompt"), "(none)", [["", o.system_prompts.map((v) => ({ value: v }))]]);
  fillSelect($("format"), "(default)", [["", o.formats.map((v) => ({ value: v }))]]);
  fillSelect($("augmentor"), "(none)", [["", o.augmentors.map((v) => ({ value: v }))]]);
  $("infer-btn").hidden = !o.inference;
  $("infer-note").textContent = o.inference
    ? `Inference endpoint: ${o.inference}`
    : "No inference engine is configured (start the explorer with --engine NAME_OR_JSON, or --model-url URL --model NAME; the key is read from $OPENAI_API_KEY). Score predictions made elsewhere above.";
  setStatus(`${o.artifacts} artifacts in ${o.catalogs.length} catalog(s)`);
  const kinds = new Set();
  const r = await api("/api/catalog?limit=5000");
  for (const a of r) kinds.add(a.name.split(".")[0]);
  fillSelect($("kind"), "all kinds", [["", [...kinds].sort().map((k) => ({ value: k }))]]);
}

async function loadCards(task) {
  const cards = await api("/api/cards?task=" + encodeURIComponent(task));
  cards.sort((a, b) => (b.local - a.local) || a.name.localeCompare(b.name));
  const local = cards.filter((c) => c.local).map((c) => ({ value: c.name, label: `\u25CF ${c.name} (local data)` }));
  const other = cards.filter((c) => !c.local).map((c) => ({ value: c.name }));
  fillSelect($("card"), cards.length ? "(choose a card)" : "(no cards)", [["data available locally", local], ["data not found locally", other]]);
}

async function loadTemplates(card, task) {
  const q = new URLSearchParams();
  if (card) q.set("card", card.split("[")[0]);
  if (task) q.set("task", task);
  let t = { card: [], task: [] };
  try { t = await api("/api/templates?" + q); } catch (e) { showError(e); }
  fillSelect($("template"), "(choose a template)", [
    ["templates of the card", t.card.map((v) => ({ value: v }))],
    ["other templates of the task", t.task.map((v) => ({ value: v }))],
  ]);
}

function updateAugmentor() {
  const t = state.tasks.find((x) => x.name === $("task").value);
  const ok = !!(t && t.augmentable);
  $("augmentor").disabled = !ok;
  $("augmentor").title = ok ? "" : "the task has no augmentable inputs";
}

// ---- preview -----------------------------------------------------------------------------------

function visibleWs(s) {
  if (!$("show-ws").checked) return s;
  return s.replace(/ /g, "\u00B7").replace(/\t/g, "\u2192").replace(/\n/g, "\u21B5\n");
}

function sourceNode(src) {
  if (Array.isArray(src)) {
    const box = el("div", { class: "chat source", "data-raw": JSON.stringify(src) });
    for (const m of src) {
      const content = typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2);
      box.append(el("div", { class: "bubble role-" + String(m.role) }, el("div", { class: "role" }, String(m.role)), el("pre", {}, visibleWs(content))));
    }
    return box;
  }
  return el("pre", { class: "source text" }, visibleWs(String(src)));
}

function sourceText(src) {
  return Array.isArray(src) ? src.map((m) => `${m.role}: ${typeof m.content === "string" ? m.content : JSON.stringify(m.content)}`).join("\n") : String(src);
}

function field(name, node) {
  return el("div", { class: "field" }, el("div", { class: "fname" }, name), node);
}

function pretty(v) { return el("pre", {}, JSON.stringify(v, null, 2)); }

function mediaNodes(media) {
  const out = el("div", { class: "media" });
  const imgs = (media && media.images) || [];
  for (const im of imgs) {
    let src = typeof im === "string" ? im : (im && (im.image || im.src || im.url));
    if (typeof src === "string" && src.startsWith("data:image/")) out.append(el("img", { src, alt: "instance image" }));
    else out.append(pretty(im));
  }
  return imgs.length ? out : null;
}

function renderInstance(inst, i) {
  let td = inst.task_data;
  try { td = JSON.parse(inst.task_data); } catch (e) { /* keep the string */ }
  const chars = sourceText(inst.source).length;
  return el("article", { class: "instance", "data-index": i },
    el("h3", {}, `Instance ${i}`, el("span", { class: "count" }, ` ${chars} characters`)),
    field("source", sourceNode(inst.source)),
    field("target", el("pre", { class: "target" }, visibleWs(String(inst.target)))),
    field("references", pretty(inst.references)),
    mediaNodes(inst.media) ? field("media", mediaNodes(inst.media)) : null,
    el("details", {}, el("summary", {}, "task_data, metrics, postprocessors, more"),
      field("task_data", pretty(td)),
      field("metrics", pretty(inst.metrics)),
      field("postprocessors", pretty(inst.postprocessors)),
      field("groups / subset", pretty({ groups: inst.groups, subset: inst.subset })),
      field("data_classification_policy", pretty(inst.data_classification_policy))));
}

async function preview(push) {
  const recipe = $("recipe").value.trim();
  renderReproduce();
  if (!recipe) return;
  if (push) pushUrl();
  const size = Number($("page-size").value);
  setStatus("preparing\u2026");
  const t0 = performance.now();
  try {
    const r = await api("/api/prepare", { recipe, split: $("split").value, offset: state.offset, limit: size });
    showError(null);
    state.lastInstances = r.instances;
    const box = $("instances");
    box.replaceChildren(...r.instances.map((inst, k) => renderInstance(inst, r.offset + k)));
    const last = r.offset + r.instances.length;
    $("page-info").textContent = r.total ? `instances ${r.offset}\u2013${last - 1} of ${r.total}` : "no instances";
    $("prev-page").disabled = r.offset === 0;
    $("next-page").disabled = last >= r.total;
    setStatus(`prepared in ${Math.round(performance.now() - t0)} ms`);
    document.body.dataset.ready = "preview";
  } catch (e) {
    $("instances").replaceChildren();
    $("page-info").textContent = "";
    showError(e);
    setStatus("error");
    document.body.dataset.ready = "error";
  }
}

// ---- URL state -----------------------------------------------------------------------------------

function urlFor() {
  const q = new URLSearchParams();
  const r = $("recipe").value.trim();
  if (r) q.set("recipe", r);
  q.set("split", $("split").value);
  if (state.view !== "preview") q.set("view", state.view);
  if (state.offset) q.set("offset", state.offset);
  if (state.view === "compare" && $("recipe-b").value.trim()) q.set("b", $("recipe-b").value.trim());
  if (state.view === "catalog" && state.artifact) q.set("artifact", state.artifact);
  return "/?" + q.toString();
}

function pushUrl() {
  const u = urlFor();
  if (u !== location.pathname + location.search) history.pushState(null, "", u);
}

async function loadFromUrl() {
  const q = new URLSearchParams(location.search);
  if (q.get("split")) ensureOption($("split"), q.get("split"));
  state.offset = Number(q.get("offset") || 0);
  if (q.get("b")) $("recipe-b").value = q.get("b");
  showView(q.get("view") || "preview", false);
  const r = q.get("recipe");
  if (r !== null && r !== $("recipe").value) await applyRecipeText(r);
  if (r) await preview(false);
  if (q.get("artifact")) await showArtifact(q.get("artifact"), false);
  if (state.view === "compare" && $("recipe-b").value) await compare(false);
}

function showView(v, push) {
  state.view = v;
  for (const s of document.querySelectorAll(".view")) s.hidden = s.id !== "view-" + v;
  for (const b of document.querySelectorAll("#tabs button")) b.classList.toggle("active", b.dataset.view === v);
  $("builder").hidden = v === "catalog";
  if (v === "compare" && !$("recipe-b").value) $("recipe-b").value = $("recipe").value;
  if (v === "reproduce") renderReproduce();
  if (push) pushUrl();
}

// ---- compare -------------------------------------------------------------------------------------

async function compare(push) {
  const a = $("recipe").value.trim(), b = $("recipe-b").value.trim();
  const i = Number($("compare-index").value || 0);
  if (push) pushUrl();
  try {
    const split = $("split").value;
    const [ra, rb] = await Promise.all([
      api("/api/prepare", { recipe: a, split, offset: i, limit: 1 }),
      api("/api/prepare", { recipe: b, split, offset: i, limit: 1 }),
    ]);
    if (!ra.instances.length || !rb.instances.length) throw new Error(`instance ${i} is not in both recipes' ${split} split`);
    const d = await api("/api/diff", { a: sourceText(ra.instances[0].source), b: sourceText(rb.instances[0].source) });
    const left = $("diff-a"), right = $("diff-b");
    left.replaceChildren(); right.replaceChildren();
    for (const part of d) {
      const t = visibleWs(part.text);
      if (part.op === "equal") { left.append(t); right.append(t); }
      else if (part.op === "delete") left.append(el("del", {}, t));
      else right.append(el("ins", {}, t));
    }
    showError(null);
    document.body.dataset.ready = "compare";
  } catch (e) { showError(e); }
}

// ---- evaluate ------------------------------------------------------------------------------------

function countPredictions(text) {
  const t = text.trim();
  if (t.startsWith("[")) { try { const a = JSON.parse(t); if (Array.isArray(a)) return a.length; } catch (e) { /* JSON Lines */ } }
  return t.split("\n").filter((l) => l.trim()).length;
}

function fmt(v) { return typeof v === "number" ? (Math.round(v * 10000) / 10000).toString() : v === null ? "" : String(v); }

async function evaluate() {
  const text = $("predictions").value;
  const n = countPredictions(text);
  try {
    const r = await api("/api/evaluate", { recipe: $("recipe").value.trim(), split: $("split").value, predictions: text, limit: n, processed: true });
    showError(null);
    renderScores(r, 0);
    document.body.dataset.ready = "evaluate";
  } catch (e) { showError(e); }
}

async function infer() {
  const size = Number($("page-size").value);
  setStatus("running the model\u2026");
  try {
    const r = await api("/api/infer", { recipe: $("recipe").value.trim(), split: $("split").value, offset: state.offset, limit: size });
    showError(null);
    $("predictions").value = JSON.stringify(r.predictions, null, 1);
    renderScores(r.scores, state.offset);
    setStatus(`scored ${r.predictions.length} model predictions from instance ${state.offset}`);
    document.body.dataset.ready = "infer";
  } catch (e) { showError(e); setStatus("error"); }
}

function renderScores(r, offset) {
  {
    const g = r.global;
    const table = $("global-scores");
    table.replaceChildren(el("tr", {}, el("th", {}, "score"), el("th", {}, "value"), el("th", {}, "ci_low"), el("th", {}, "ci_high")));
    for (const [k, v] of Object.entries(g)) {
      if (k.endsWith("_ci_low") || k.endsWith("_ci_high")) continue;
      table.append(el("tr", { "data-score": k }, el("td", {}, k), el("td", { class: "value" }, fmt(v)), el("td", {}, fmt(g[k + "_ci_low"] ?? null)), el("td", {}, fmt(g[k + "_ci_high"] ?? null))));
    }
    state.evalRows = r.instances.map((s, i) => ({ i: i + offset, prediction: r.processed[i].prediction, references: r.processed[i].references, score: s.score, score_name: s.score_name }));
    state.judged = new Map(r.instances.map((s, i) => [i + offset, judgeGroups(s)]));
    renderScoreTable();
  }
}

function renderScoreTable() {
  const cols = ["i", "prediction", "references", "score", "score_name"];
  const onlyWrong = $("only-wrong").checked;
  const f = $("score-filter").value.toLowerCase();
  let rows = state.evalRows.filter((r) => (!onlyWrong || !(r.score >= 1)) && (!f || JSON.stringify(r).toLowerCase().includes(f)));
  if (state.sortKey) {
    const k = state.sortKey;
    rows = rows.slice().sort((a, b) => {
      const x = typeof a[k] === "object" ? JSON.stringify(a[k]) : a[k], y = typeof b[k] === "object" ? JSON.stringify(b[k]) : b[k];
      return (x < y ? -1 : x > y ? 1 : 0) * state.sortDir;
    });
  }
  const head = el("tr", {}, ...cols.map((c) => el("th", { class: "sortable", onclick: () => { state.sortDir = state.sortKey === c ? -state.sortDir : 1; state.sortKey = c; renderScoreTable(); } }, c + (state.sortKey === c ? (state.sortDir > 0 ? " \u25B2" : " \u25BC") : ""))));
  const judged = (r) => state.judged.get(r.i) || [];
  const cell = (r, c) => {
    const text = typeof r[c] === "object" ? JSON.stringify(r[c]) : fmt(r[c]);
    // An instance a judge scored links to its judge section below.
    return el("td", {}, c === "i" && judged(r).length ? el("a", { href: `#judge-${r.i}` }, text) : text);
  };
  $("instance-scores").replaceChildren(head, ...rows.map((r) => el("tr", { class: r.score >= 1 ? "right" : "wrong", "data-index": r.i }, ...cols.map((c) => cell(r, c)))));
  // The judges' sections follow the table's filter and order.
  const sections = rows.filter((r) => judged(r).length).map((r) => judgeSection(r, judged(r)));
  $("judge-title").hidden = !sections.length;
  $("judge-details").replaceChildren(...sections);
}

// ---- LLM judges ----------------------------------------------------------------------------------

// What LLM judges add to an instance's scores, as suffixes of score names: `<main>_<suffix>` for
// a direct judge (`answer_relevance_assessment`), `<system>_<suffix>` for each system of a
// pairwise judge, `<main>_judge_raw_output` for a template-based judge. Listed in the order they
// are shown; matched longest first, so that `x_positional_bias_assessment` is not taken for an
// `assessment` of `x_positional_bias`.
const JUDGE_FIELDS = [
  "winrate", "ranking", "selected_option", "positional_bias_selected_option", "positional_bias",
  "assessment", "positional_bias_assessment", "summary", "positional_bias_summary",
  "option_selection_completion", "positional_bias_option_selection_completion",
  "judge_raw_output",
  "response_name", "compared_to", "selections", "contest_results",
  "assessments", "positional_bias_assessments", "summaries",
  "option_selection_outputs", "positional_bias_selection",
  "prompts", "judge_raw_input", "criteria",
];
const JUDGE_BY_LENGTH = JUDGE_FIELDS.slice().sort((a, b) => b.length - a.length);
// A prefix is a judge's when one of these is among its fields.
const JUDGE_ANCHORS = new Set(["selected_option", "option_selection_completion", "assessments", "prompts", "judge_raw_output", "judge_raw_input"]);
// Shown folded: long, and read less often than the verdict.
const JUDGE_FOLDED = new Set(["prompts", "judge_raw_input", "criteria"]);

// The judges of one instance's scores: [{prefix, score, fields: Map(suffix -> value)}] in the
// order of the scores; a field without prefix (a pairwise judge's `criteria`) goes to each.
// Scores of other metrics are left out.
function judgeGroups(scores) {
  const groups = new Map(), bare = new Map();
  for (const [k, v] of Object.entries(scores)) {
    const suffix = JUDGE_BY_LENGTH.find((f) => k === f || k.endsWith("_" + f));
    if (!suffix) continue;
    if (k === suffix) { bare.set(suffix, v); continue; }
    const prefix = k.slice(0, k.length - suffix.length - 1);
    if (!groups.has(prefix)) groups.set(prefix, new Map());
    groups.get(prefix).set(suffix, v);
  }
  const out = [];
  for (const [prefix, fields] of groups) {
    if (![...fields.keys()].some((f) => JUDGE_ANCHORS.has(f))) continue;
    for (const [f, v] of bare) if (!fields.has(f)) fields.set(f, v);
    out.push({ prefix, score: scores[prefix], fields });
  }
  // A judge whose fields carry no prefix at all: named after the instance's main score.
  if (!out.length && [...bare.keys()].some((f) => JUDGE_ANCHORS.has(f))) out.push({ prefix: String(scores.score_name ?? "judge"), score: scores.score, fields: bare });
  return out;
}

function isMessage(m) { return m && typeof m === "object" && !Array.isArray(m) && "role" in m && "content" in m; }

// Chat messages as the preview shows them: one bubble per message, its role above its content.
function chatNode(messages) {
  return el("div", { class: "chat" }, ...messages.map((m) => el("div", { class: "bubble role-" + String(m.role), "data-role": String(m.role) },
    el("div", { class: "role" }, String(m.role)),
    el("pre", { class: "content" }, typeof m.content === "string" ? m.content : JSON.stringify(m.content, null, 2)))));
}

// A judge's value: text as is, chat messages as bubbles, a list (one item per contest of a
// pairwise judge) as numbered items, anything else as JSON.
function judgeValue(v) {
  if (typeof v === "string") return el("pre", { class: "judge-text" }, v);
  if (Array.isArray(v) && v.length && v.every(isMessage)) return chatNode(v);
  if (Array.isArray(v)) return el("ol", { class: "judge-list" }, ...v.map((x) => el("li", {}, judgeValue(x))));
  if (v === null || typeof v !== "object") return el("pre", { class: "judge-text" }, fmt(v) === "" ? "null" : fmt(v));
  return pretty(v);
}

// A judge's prompts: one folded part per stage (`assessment`, `option_selection`, ...), each
// with the messages sent (a pairwise judge: one prompt per contest).
function promptsNode(prompts) {
  if (!prompts || typeof prompts !== "object" || Array.isArray(prompts)) return judgeValue(prompts);
  return el("div", { class: "stages" }, ...Object.entries(prompts).map(([stage, v]) =>
    el("details", { class: "stage", "data-stage": stage }, el("summary", {}, stage), judgeValue(v))));
}

function judgeField(name, v) {
  let node = name === "prompts" ? promptsNode(v) : judgeValue(v);
  if (name === "criteria" && typeof v === "string") {
    try { node = pretty(JSON.parse(v)); } catch (e) { /* not JSON: as text */ }
  }
  const label = name.replace(/_/g, " ");
  return JUDGE_FOLDED.has(name)
    ? el("details", { class: "field folded", "data-field": name }, el("summary", { class: "fname" }, label), node)
    : el("div", { class: "field", "data-field": name }, el("div", { class: "fname" }, label), node);
}

// One instance's judges: a part per judge (per response of a pairwise judge, named in its
// title), its fields in the order of JUDGE_FIELDS; empty lists (no summaries asked) left out.
function judgeSection(row, groups) {
  const shown = (g, f) => g.fields.has(f) && f !== "response_name" && !(Array.isArray(g.fields.get(f)) && !g.fields.get(f).length);
  return el("article", { class: "judged", id: `judge-${row.i}`, "data-index": row.i },
    el("h3", {}, `Instance ${row.i}`),
    field("prediction", el("pre", { class: "target" }, typeof row.prediction === "string" ? row.prediction : JSON.stringify(row.prediction, null, 2))),
    ...groups.map((g) => el("div", { class: "judge-group", "data-judge": g.prefix },
      el("h4", {}, g.fields.has("response_name") ? `response ${g.fields.get("response_name")}` : g.prefix,
        g.score === undefined ? null : el("span", { class: "count" }, ` score ${fmt(g.score)}`)),
      ...JUDGE_FIELDS.filter((f) => shown(g, f)).map((f) => judgeField(f, g.fields.get(f))))));
}

// ---- catalog -------------------------------------------------------------------------------------

let searchTimer = null;
async function search() {
  const q = new URLSearchParams({ q: $("search").value, kind: $("kind").value, limit: "200" });
  try {
    const r = await api("/api/catalog?" + q);
    $("results").replaceChildren(...r.map((a) => el("li", {}, el("a", { href: "#", "data-name": a.name, onclick: (ev) => { ev.preventDefault(); showArtifact(a.name, true); } }, a.name), el("span", { class: "type" }, " " + a.type))));
  } catch (e) { showError(e); }
}

function jsonNode(v, refs, indent) {
  const pad = "  ".repeat(indent);
  if (Array.isArray(v)) {
    if (!v.length) return document.createTextNode("[]");
    const f = document.createDocumentFragment();
    f.append("[\n");
    v.forEach((x, i) => { f.append(pad + "  ", jsonNode(x, refs, indent + 1), i < v.length - 1 ? ",\n" : "\n"); });
    f.append(pad + "]");
    return f;
  }
  if (v && typeof v === "object") {
    const keys = Object.keys(v);
    if (!keys.length) return document.createTextNode("{}");
    const f = document.createDocumentFragment();
    f.append("{\n");
    keys.forEach((k, i) => { f.append(pad + "  " + JSON.stringify(k) + ": ", jsonNode(v[k], refs, indent + 1), i < keys.length - 1 ? ",\n" : "\n"); });
    f.append(pad + "}");
    return f;
  }
  if (typeof v === "string" && refs.has(v.split("[")[0].trim())) {
    const name = v.split("[")[0].trim();
    return el("a", { href: "/?view=catalog&artifact=" + encodeURIComponent(name), class: "ref", onclick: (ev) => { ev.preventDefault(); showArtifact(name, true); } }, JSON.stringify(v));
  }
  return el("span", { class: typeof v }, JSON.stringify(v));
}

async function showArtifact(name, push) {
  try {
    const a = await api("/api/artifact/" + encodeURIComponent(name));
    state.artifact = name;
    if (state.view !== "catalog") showView("catalog", false);
    $("artifact-name").textContent = `${a.name}  (${a.type || "no __type__"})`;
    $("artifact-json").replaceChildren(jsonNode(a.artifact, new Set(a.refs), 0));
    $("used-by").replaceChildren(...(a.used_by.length ? a.used_by.map((u) => el("li", {}, el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); showArtifact(u, true); } }, u))) : [el("li", {}, "(nothing in the catalog refers to it)")]));
    showError(null);
    if (push) pushUrl();
    document.body.dataset.ready = "artifact";
  } catch (e) { showError(e); }
}

// ---- reproduce -----------------------------------------------------------------------------------

function renderReproduce() {
  const r = $("recipe").value.trim() || "card=...,template=...";
  const split = $("split").value;
  const sh = "'" + r.replace(/'/g, "'\\''") + "'";
  $("code-cli").textContent = `unitxt-rs prepare ${sh} --split ${split} --output ${split}.jsonl`;
  $("code-rs").textContent = `import unitxt_rs\n\nds = unitxt_rs.load_dataset(${JSON.stringify(r)}, split=${JSON.stringify(split)})`;
  $("code-unitxt").textContent = `from unitxt import load_dataset\n\nds = load_dataset(${JSON.stringify(r)}, split=${JSON.stringify(split)})`;
}

// ---- wiring --------------------------------------------------------------------------------------

function onSelectionChange() {
  updateRecipeText();
  state.offset = 0;
  if ($("card").value && $("template").value) preview(true);
}

async function init() {
  for (const b of document.querySelectorAll("#tabs button")) b.addEventListener("click", () => showView(b.dataset.view, true));
  $("task").addEventListener("change", async () => {
    const t = $("task").value;
    updateAugmentor();
    fillSelect($("template"), "(choose a card first)", []);
    if (t) await loadCards(t); else fillSelect($("card"), "(choose a task first)", []);
    updateRecipeText();
  });
  $("card").addEventListener("change", async () => {
    await loadTemplates($("card").value, $("task").value);
    updateRecipeText();
  });
  for (const id of ["template", "system_prompt", "format", "augmentor", "num_demos", "demos_pool_size", "max_instances", "split"]) {
    $(id).addEventListener("change", onSelectionChange);
  }
  $("apply-recipe").addEventListener("click", async () => { state.offset = 0; await applyRecipeText($("recipe").value.trim()); preview(true); });
  $("recipe").addEventListener("keydown", (ev) => { if (ev.key === "Enter" && !ev.shiftKey) { ev.preventDefault(); $("apply-recipe").click(); } });
  $("copy-recipe").addEventListener("click", () => {
    $("recipe").select();
    if (navigator.clipboard) navigator.clipboard.writeText($("recipe").value).catch(() => document.execCommand("copy"));
    else document.execCommand("copy");
  });
  $("prev-page").addEventListener("click", () => { state.offset = Math.max(0, state.offset - Number($("page-size").value)); preview(true); });
  $("next-page").addEventListener("click", () => { state.offset += Number($("page-size").value); preview(true); });
  $("page-size").addEventListener("change", () => preview(false));
  $("show-ws").addEventListener("change", () => preview(false));
  $("compare-btn").addEventListener("click", () => compare(true));
  $("evaluate-btn").addEventListener("click", evaluate);
  $("infer-btn").addEventListener("click", infer);
  $("fill-targets").addEventListener("click", () => { $("predictions").value = JSON.stringify(state.lastInstances.map((x) => x.target)); });
  $("predictions-file").addEventListener("change", async () => { const f = $("predictions-file").files[0]; if (f) $("predictions").value = await f.text(); });
  $("only-wrong").addEventListener("change", renderScoreTable);
  $("score-filter").addEventListener("input", renderScoreTable);
  $("search").addEventListener("input", () => { clearTimeout(searchTimer); searchTimer = setTimeout(search, 150); });
  $("kind").addEventListener("change", search);
  window.addEventListener("popstate", () => loadFromUrl().catch(showError));
  try {
    await Promise.all([loadTasks(), loadOptions()]);
    await loadFromUrl();
    search();
  } catch (e) { showError(e); }
  document.body.dataset.loaded = "1";
}

init();
