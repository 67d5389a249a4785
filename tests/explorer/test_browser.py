"""The explorer in a real headless Chromium (Debian's chromium + chromium-driver, driven by
selenium): build a recipe by clicking, open a shared link, compare two recipes, score
predictions (with an LLM judge's assessments and prompts per instance, or a template judge's raw
output and input, the judge answering from a scripted local server), see markup from the catalog as text, and see an invalid recipe's error. Every
expected value comes from running the `unitxt-rs` binary itself (prepare / evaluate).

Run by scripts/test.sh; needs the binary (target/debug/unitxt-rs, or $UNITXT_RS_BIN), the
installed Unitxt catalog and the shared hub cache. Screenshots go to target/explorer-screenshots/.
"""

import json
import os
import subprocess
import urllib.parse
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

ROOT = Path(__file__).resolve().parents[2]
TEST_CATALOG = ROOT / "tests" / "explorer" / "catalog"
SHOTS = ROOT / "target" / "explorer-screenshots"
WAIT = 120


def binary():
    if os.environ.get("UNITXT_RS_BIN"):
        return os.environ["UNITXT_RS_BIN"]
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    return str(target / "debug" / "unitxt-rs")


def cli_prepare(recipe, split="test"):
    out = subprocess.run([binary(), "prepare", recipe, "--split", split, "--catalog", str(TEST_CATALOG)],
                         cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def server():
    proc = subprocess.Popen([binary(), "explore", "--port", "0", "--catalog", str(TEST_CATALOG)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    assert "http://127.0.0.1:" in line, line + proc.stderr.read()
    url = line.split()[2].rstrip("/")
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def driver():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000"]:
        opts.add_argument(a)
    d = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    yield d
    d.quit()


def shot(driver, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    driver.save_screenshot(str(SHOTS / f"{name}.png"))


def js(driver, script, *args):
    return driver.execute_script(script, *args)


def open_page(driver, url):
    driver.get(url)
    WebDriverWait(driver, WAIT).until(lambda d: js(d, "return document.body.dataset.loaded") == "1")


def wait_ready(driver, what):
    WebDriverWait(driver, WAIT).until(lambda d: js(d, "return document.body.dataset.ready") in (what, "error"))
    assert js(driver, "return document.body.dataset.ready") == what, js(driver, "return document.getElementById('error').textContent")


def wait_option(driver, select_id, value):
    WebDriverWait(driver, WAIT).until(
        lambda d: js(d, "return [...document.getElementById(arguments[0]).options].some(o => o.value === arguments[1])", select_id, value))


def first_source(driver):
    return js(driver, """const s = document.querySelector('.instance .source');
        return s.dataset.raw ? JSON.parse(s.dataset.raw) : s.textContent;""")


def link(server, **q):
    return server + "/?" + urllib.parse.urlencode(q)


def test_build_recipe_by_clicking(server, driver):
    open_page(driver, server + "/")
    Select(driver.find_element(By.ID, "task")).select_by_value("tasks.classification.multi_class")
    wait_option(driver, "card", "cards.sst2")
    # The card is marked as having its data on this machine.
    label = js(driver, "return [...document.getElementById('card').options].find(o => o.value === 'cards.sst2').textContent")
    assert "local data" in label
    Select(driver.find_element(By.ID, "card")).select_by_value("cards.sst2")
    wait_option(driver, "template", "templates.classification.multi_class.title")
    js(driver, "document.body.dataset.ready = ''")
    Select(driver.find_element(By.ID, "template")).select_by_value("templates.classification.multi_class.title")
    wait_ready(driver, "preview")
    recipe = driver.find_element(By.ID, "recipe").get_attribute("value")
    assert recipe == "card=cards.sst2,template=templates.classification.multi_class.title"
    assert first_source(driver) == cli_prepare(recipe)[0]["source"]
    assert "recipe=card%3Dcards.sst2" in driver.current_url
    shot(driver, "1-build-preview")
    # Whitespace made visible.
    js(driver, "document.body.dataset.ready = ''")
    driver.find_element(By.ID, "show-ws").click()
    wait_ready(driver, "preview")
    assert "\u21b5" in first_source(driver)
    driver.find_element(By.ID, "show-ws").click()


def test_open_a_recipe_link_and_page_back(server, driver):
    recipe = ("card=cards.mmlu.anatomy,template=templates.qa.multiple_choice.with_topic.helm,"
              "format=formats.chat_api,num_demos=3,demos_pool_size=5")
    open_page(driver, link(server, recipe=recipe, split="test"))
    wait_ready(driver, "preview")
    want = cli_prepare(recipe)
    assert first_source(driver) == want[0]["source"]
    assert isinstance(want[0]["source"], list)
    assert driver.find_elements(By.CSS_SELECTOR, ".instance .bubble.role-user")
    # The selections follow the recipe.
    assert Select(driver.find_element(By.ID, "card")).first_selected_option.get_attribute("value") == "cards.mmlu.anatomy"
    assert Select(driver.find_element(By.ID, "format")).first_selected_option.get_attribute("value") == "formats.chat_api"
    assert driver.find_element(By.ID, "num_demos").get_attribute("value") == "3"
    shot(driver, "2-chat-link")
    js(driver, "document.body.dataset.ready = ''")
    driver.find_element(By.ID, "next-page").click()
    wait_ready(driver, "preview")
    assert "offset=5" in driver.current_url
    assert js(driver, "return document.querySelector('.instance').dataset.index") == "5"
    assert first_source(driver) == want[5]["source"]
    js(driver, "document.body.dataset.ready = ''")
    driver.back()
    wait_ready(driver, "preview")
    assert js(driver, "return document.querySelector('.instance').dataset.index") == "0"


def test_compare_two_recipes(server, driver):
    a = "card=cards.sst2,template=templates.classification.multi_class.title"
    b = "card=cards.sst2,template=templates.classification.multi_class.instruction"
    open_page(driver, link(server, recipe=a, split="test", view="compare", b=b))
    wait_ready(driver, "compare")
    dels = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#diff-a del")]
    ins = [e.text for e in driver.find_elements(By.CSS_SELECTOR, "#diff-b ins")]
    assert dels and ins
    # Each side reads back as its recipe's source.
    side_a = js(driver, "return document.getElementById('diff-a').textContent")
    side_b = js(driver, "return document.getElementById('diff-b').textContent")
    assert side_a == cli_prepare(a)[0]["source"]
    assert side_b == cli_prepare(b)[0]["source"]
    shot(driver, "3-compare")


def test_evaluate_pasted_predictions(server, driver, tmp_path):
    recipe = "card=cards.sst2,template=templates.classification.multi_class.title,max_test_instances=30"
    rows = cli_prepare(recipe)
    preds = ["positive" if i % 4 == 0 else r["target"] for i, r in enumerate(rows)]
    pf = tmp_path / "p.json"
    pf.write_text(json.dumps(preds))
    cli = json.loads(subprocess.run([binary(), "evaluate", recipe, "--split", "test", "--predictions", str(pf), "--output", "-"],
                                    cwd=ROOT, capture_output=True, text=True, check=True).stdout)
    open_page(driver, link(server, recipe=recipe, split="test", view="evaluate"))
    box = driver.find_element(By.ID, "predictions")
    box.clear()
    js(driver, "document.getElementById('predictions').value = arguments[0]", "\n".join(json.dumps(p) for p in preds))
    js(driver, "document.body.dataset.ready = ''")
    driver.find_element(By.ID, "evaluate-btn").click()
    wait_ready(driver, "evaluate")
    cell = driver.find_element(By.CSS_SELECTOR, "#global-scores tr[data-score='score'] td.value").text
    assert float(cell) == pytest.approx(cli["global"]["score"], abs=1e-4)
    low = driver.find_element(By.CSS_SELECTOR, "#global-scores tr[data-score='score'] td:nth-child(3)").text
    assert float(low) == pytest.approx(cli["global"]["score_ci_low"], abs=1e-4)
    n_rows = len(driver.find_elements(By.CSS_SELECTOR, "#instance-scores tr")) - 1
    assert n_rows == len(rows)
    driver.find_element(By.ID, "only-wrong").click()
    wrong = len(driver.find_elements(By.CSS_SELECTOR, "#instance-scores tr")) - 1
    assert wrong == sum(1 for s in cli["instances"] if not s["score"] >= 1)
    assert 0 < wrong < len(rows)
    shot(driver, "4-evaluate")


def test_markup_in_the_catalog_is_shown_as_text(server, driver):
    open_page(driver, link(server, view="catalog", artifact="cards.explorer_xss"))
    WebDriverWait(driver, WAIT).until(lambda d: js(d, "return document.body.dataset.ready") == "artifact")
    text = js(driver, "return document.getElementById('artifact-json').textContent")
    assert "<script>window.__xss = 1</script>" in text
    assert js(driver, "return window.__xss === undefined")
    assert not driver.find_elements(By.CSS_SELECTOR, "#artifact-json script, #artifact-json img")
    # Referenced artifacts are links; following one shows it.
    driver.find_element(By.CSS_SELECTOR, "#artifact-json a.ref[href*='templates.explorer_xss']").click()
    WebDriverWait(driver, WAIT).until(lambda d: "templates.explorer_xss" in d.find_element(By.ID, "artifact-name").text)
    assert driver.find_element(By.ID, "used-by").text.strip() == "cards.explorer_xss"
    shot(driver, "5-catalog-artifact")
    recipe = "card=cards.explorer_xss,template=templates.explorer_xss"
    open_page(driver, link(server, recipe=recipe, split="test"))
    wait_ready(driver, "preview")
    assert first_source(driver) == cli_prepare(recipe)[0]["source"]
    assert "<script>window.__xss = 3</script>" in first_source(driver)
    assert js(driver, "return window.__xss === undefined")
    assert not driver.find_elements(By.CSS_SELECTOR, "#instances script, #instances b")
    # Search is typo-tolerant.
    open_page(driver, link(server, view="catalog"))
    driver.find_element(By.ID, "search").send_keys("sst3")
    WebDriverWait(driver, WAIT).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#results a[data-name='cards.sst2']"))


def test_an_invalid_combination_shows_its_error(server, driver):
    recipe = "card=cards.sst2,template=templates.qa.open.title"
    proc = subprocess.run([binary(), "prepare", recipe, "--split", "test"], cwd=ROOT, capture_output=True, text=True)
    assert proc.returncode != 0
    open_page(driver, link(server, recipe=recipe, split="test"))
    wait_ready(driver, "error")
    err = driver.find_element(By.ID, "error")
    assert err.is_displayed()
    first_line = proc.stderr.removeprefix("error: ").splitlines()[0]
    assert first_line in err.text
    # The page is still there: the builder and tabs work.
    assert driver.find_element(By.ID, "tab-catalog").is_displayed()
    shot(driver, "6-error")
    driver.find_element(By.ID, "tab-reproduce").click()
    assert recipe in driver.find_element(By.ID, "code-cli").text
    assert "unitxt_rs.load_dataset" in driver.find_element(By.ID, "code-rs").text
    shot(driver, "7-reproduce")


def test_no_endpoint_is_said_plainly(server, driver):
    open_page(driver, link(server, view="evaluate"))
    assert "No inference engine is configured" in driver.find_element(By.ID, "infer-note").text
    assert not driver.find_element(By.ID, "infer-btn").is_displayed()


def test_infer_through_a_local_openai_compatible_endpoint(driver, tmp_path):
    """A local endpoint written for the test answers every chat completion with "negative"; the
    page runs its five instances through it and shows the CLI's score of those answers."""
    import http.server
    import threading

    seen = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            seen.append(body)
            out = json.dumps({"choices": [{"message": {"role": "assistant", "content": "negative"}}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    proc = subprocess.Popen([binary(), "explore", "--port", "0", "--model-url", f"http://127.0.0.1:{httpd.server_port}/v1",
                             "--model", "fake"], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[2].rstrip("/")
        recipe = "card=cards.sst2,template=templates.classification.multi_class.title,max_test_instances=20"
        open_page(driver, link(url, recipe=recipe, split="test", view="evaluate"))
        wait_ready(driver, "preview")
        assert "fake" in driver.find_element(By.ID, "infer-note").text
        driver.find_element(By.ID, "infer-btn").click()
        wait_ready(driver, "infer")
        assert len(seen) == 5 and all(b["model"] == "fake" for b in seen)
        rows = cli_prepare(recipe)[:5]
        # The requests go out in parallel: compare them as a multiset.
        assert sorted(json.dumps(b["messages"]) for b in seen) == sorted(
            json.dumps([{"role": "user", "content": r["source"]}]) for r in rows
        )
        data, preds = tmp_path / "d.jsonl", tmp_path / "p.json"
        data.write_text("".join(json.dumps(r) + "\n" for r in rows))
        preds.write_text(json.dumps(["negative"] * 5))
        cli = json.loads(subprocess.run([binary(), "evaluate", "--data", str(data), "--predictions", str(preds), "--output", "-"],
                                        cwd=ROOT, capture_output=True, text=True, check=True).stdout)
        cell = driver.find_element(By.CSS_SELECTOR, "#global-scores tr[data-score='score'] td.value").text
        assert float(cell) == pytest.approx(cli["global"]["score"], abs=1e-4)
        shot(driver, "8-infer")
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        httpd.shutdown()


def _judge_answer(body):
    """The scripted judge's answer: for an option selection, one of the options the prompt
    lists (chosen by a hash of the body, sometimes after other words); for a pairwise winner
    selection, one of the responses; for a rating template judge, a rating after markup; for a
    groundedness judge, one of its verbal options (one with markup after it); else an assessment text with markup in it, which the page
    must show as text."""
    import hashlib

    h = int(hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest(), 16)
    last = body["messages"][-1]["content"]
    if "The selected criteria option is:" in last:
        options = [line.split('"')[1] for line in last.splitlines() if line.startswith('- "')]
        o = options[h % len(options)]
        return [o, f"I choose {o}"][h // 7 % 2]
    if last.endswith("Answer: "):
        systems = [line.split('"')[1] for line in last.splitlines() if line.startswith('Choose "')]
        return f"Response {systems[h % len(systems)]}"
    everything = json.dumps(body)
    if "Rating: [[5]]" in everything:  # a rating template judge: the rating after markup
        return f"<b>Fine</b> <script>window.__xss = 9</script>\n\nRating: [[{h % 10 + 1}]]"
    if "Reply with one of the 4 options" in everything:  # a verbal groundedness (first word counts)
        return ["Mostly grounded", "Completely Grounded <img src=x onerror=\"window.__xss = 10\">", "Not grounded"][h % 3]
    return f"Assessment {h % 997}: <b>fine</b> <script>window.__xss = 7</script>\n  second line."


@pytest.fixture()
def judge(tmp_path):
    """A scripted OpenAI-compatible judge server on 127.0.0.1 (answers: `_judge_answer`) and an
    explorer whose judges reach it through OPENAI_BASE_URL. Yields (explorer URL, environment,
    take) where take() returns the request bodies received since the last call, sorted."""
    import http.server
    import threading

    bodies, lock = [], threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            body = json.loads(self.rfile.read(int(self.headers["content-length"])))
            with lock:
                bodies.append(body)
            answer = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": body.get("model"),
                      "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": _judge_answer(body)}}],
                      "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}}
            out = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

        def log_message(self, *a):
            pass

    def take():
        with lock:
            out = sorted(json.dumps(b, sort_keys=True) for b in bodies)
            bodies.clear()
        return out

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    env = dict(os.environ, OPENAI_BASE_URL=f"http://127.0.0.1:{httpd.server_port}/v1", OPENAI_API_KEY="sk-test")
    env.pop("UNITXT_DEFAULT_PROVIDER", None)
    proc = subprocess.Popen([binary(), "explore", "--port", "0", "--catalog", str(TEST_CATALOG)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, text=True)
    try:
        url = proc.stdout.readline().split()[2].rstrip("/")
        yield url, env, take
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        httpd.shutdown()


def _cli_evaluate(recipe, preds, env, tmp_path):
    pf = tmp_path / "p.json"
    pf.write_text(json.dumps(preds))
    done = subprocess.run([binary(), "evaluate", recipe, "--split", "test", "--catalog", str(TEST_CATALOG), "--predictions", str(pf),
                           "--output", "-"], cwd=ROOT, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _evaluate_in_page(driver, url, recipe, preds):
    open_page(driver, link(url, recipe=recipe, split="test", view="evaluate"))
    wait_ready(driver, "preview")
    js(driver, "document.getElementById('predictions').value = arguments[0]", json.dumps(preds))
    js(driver, "document.body.dataset.ready = ''")
    driver.find_element(By.ID, "evaluate-btn").click()
    wait_ready(driver, "evaluate")
    assert driver.find_element(By.ID, "judge-title").is_displayed()


def _judge_text(driver, group, name):
    return js(driver, "const e = document.querySelector(arguments[0]); return e && e.textContent;", f"{group} [data-field='{name}'] > pre")


def _stages(driver, group):
    """Each stage of a judge's prompts on the page: [stage, [[role, content] of each message]]
    (a pairwise judge's stages: one list of messages per contest)."""
    return js(driver, """return [...document.querySelectorAll(arguments[0] + " [data-field='prompts'] details.stage")].map(d => {
        const chat = (c) => [...c.querySelectorAll('.bubble')].map(b => [b.dataset.role, b.querySelector('pre').textContent]);
        const items = d.querySelectorAll(':scope > ol > li');
        return [d.dataset.stage, items.length ? [...items].map(chat) : chat(d)]; });""", group)


def test_llm_judge_assessments_selected_options_and_prompts(driver, judge, tmp_path):
    """A direct LLM judge (the catalog's GPT-4o judge with a catalog criteria; its engine reaches
    a scripted OpenAI-compatible server through OPENAI_BASE_URL): each evaluated instance shows
    the judge's selected option, its assessment (the server's answer to the prompt shown) and
    the positional-bias ones, and each stage's prompt messages, exactly as `unitxt-rs evaluate`
    scores them on the same server; the model's markup stays text."""
    url, env, take = judge
    recipe = "card=cards.explorer_judge,template_card_index=0"
    preds = ["four", "Lyon <img src=x onerror=\"window.__xss = 8\">", "It is <i>blue</i>."]
    cli = _cli_evaluate(recipe, preds, env, tmp_path)
    cli_bodies = take()
    # Assessment and option selection, each also with the options reversed.
    assert len(cli_bodies) == 4 * len(preds)
    _evaluate_in_page(driver, url, recipe, preds)
    assert take() == cli_bodies
    main = "answer_relevance"
    for i, scores in enumerate(cli["instances"]):
        group = f"#judge-{i} .judge-group[data-judge='{main}']"
        for name in ["selected_option", "positional_bias_selected_option", "assessment", "positional_bias_assessment",
                     "option_selection_completion"]:
            assert _judge_text(driver, group, name) == scores[f"{main}_{name}"], name
        # The assessment is the server's answer to the assessment prompt the page shows.
        prompts = scores[f"{main}_prompts"]
        sent = [b for b in map(json.loads, cli_bodies) if b["messages"] == prompts["assessment"]]
        assert len(sent) == 1 and _judge_text(driver, group, "assessment") == _judge_answer(sent[0])
        assert "<script>window.__xss = 7</script>" in _judge_text(driver, group, "assessment")
        # Each stage's messages, role and content, in the folded prompts.
        stages = _stages(driver, group)
        assert stages == [[k, [[m["role"], m["content"]] for m in v]] for k, v in prompts.items()]
        assert any(preds[i] in content for _, content in stages[0][1])
    # The prompts are folded until opened.
    first_stage = f"#judge-1 .judge-group[data-judge='{main}'] [data-field='prompts'] details.stage[data-stage='assessment']"
    assert not driver.find_element(By.CSS_SELECTOR, first_stage + " .bubble").is_displayed()
    driver.find_element(By.CSS_SELECTOR, "#judge-1 [data-field='prompts'] > summary").click()
    driver.find_element(By.CSS_SELECTOR, first_stage + " > summary").click()
    bubble = driver.find_element(By.CSS_SELECTOR, first_stage + " .bubble.role-user pre")
    assert bubble.is_displayed() and "Lyon <img src=x" in bubble.text
    js(driver, "document.querySelector(arguments[0]).scrollIntoView({block: 'center'})", "#judge-1 [data-field='selected_option']")
    assert js(driver, "return window.__xss === undefined")
    assert not driver.find_elements(By.CSS_SELECTOR, "#judge-details script, #judge-details b, #judge-details img, #judge-details i")
    # The instance's row links to its judge section.
    assert driver.find_element(By.CSS_SELECTOR, "#instance-scores tr[data-index='1'] a").get_attribute("href").endswith("#judge-1")
    shot(driver, "9-judge")


def test_pairwise_llm_judge_per_system(driver, judge, tmp_path):
    """A pairwise LLM judge (the catalog's GPT-4o one, on the scripted server): each instance
    shows a part per system with its win rate, ranking, the assessments of its contests and the
    prompts of each contest, exactly as `unitxt-rs evaluate` scores them."""
    url, env, take = judge
    recipe = "card=cards.explorer_judge_pairwise,template_card_index=0"
    preds = [["4", "five <b>5</b>"], ["Paris", "Lyon"]]
    cli = _cli_evaluate(recipe, preds, env, tmp_path)
    cli_bodies = take()
    _evaluate_in_page(driver, url, recipe, preds)
    assert take() == cli_bodies
    for i, scores in enumerate(cli["instances"]):
        for system in ["1", "2"]:  # a list of responses: systems named by position
            group = f"#judge-{i} .judge-group[data-judge='{system}']"
            assert _judge_text(driver, group, "winrate") == str(scores[f"{system}_winrate"]).removesuffix(".0")
            assert _judge_text(driver, group, "ranking") == str(scores[f"{system}_ranking"])
            items = js(driver, "return [...document.querySelectorAll(arguments[0])].map(e => e.textContent)",
                       f"{group} [data-field='assessments'] > ol > li > pre")
            assert items == scores[f"{system}_assessments"] and items
            prompts = scores[f"{system}_prompts"]
            assert _stages(driver, group) == [[k, [[[m["role"], m["content"]] for m in c] for c in v]] for k, v in prompts.items()]
    assert not driver.find_elements(By.CSS_SELECTOR, "#judge-details script, #judge-details b")
    driver.find_element(By.CSS_SELECTOR, "#judge-0 .judge-group[data-judge='1'] [data-field='prompts'] > summary").click()
    driver.find_element(By.CSS_SELECTOR, "#judge-0 .judge-group[data-judge='1'] details.stage[data-stage='option_selection'] > summary").click()
    js(driver, "document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", "#judge-0")
    shot(driver, "10-judge-pairwise")


def _bubbles(driver, selector):
    """The chat messages under `selector` on the page: [[role, content] of each bubble]."""
    return js(driver, """return [...document.querySelectorAll(arguments[0] + ' .bubble')]
        .map(b => [b.dataset.role, b.querySelector('pre').textContent]);""", selector)


def _check_template_judge(driver, cli, cli_bodies, main, preds):
    """Each instance's part for the template judge `main` shows its score, its raw output (the
    server's answer to the raw input) and its raw input's messages, as `unitxt-rs evaluate`
    gives them; folded raw input; model markup as text. Returns the page's scores."""
    shown = []
    for i, scores in enumerate(cli["instances"]):
        group = f"#judge-{i} .judge-group[data-judge='{main}']"
        assert js(driver, "return document.querySelectorAll(arguments[0]).length", f"#judge-{i} .judge-group") == 1
        score = driver.find_element(By.CSS_SELECTOR, f"{group} h4 .count").get_attribute("textContent")
        assert score.startswith(" score ") and float(score.removeprefix(" score ")) == pytest.approx(scores[main], abs=1e-4)
        shown.append(scores[main])
        raw_output, raw_input = scores[f"{main}_judge_raw_output"], scores[f"{main}_judge_raw_input"]
        assert _judge_text(driver, group, "judge_raw_output") == raw_output
        assert isinstance(raw_input, list) and raw_input
        assert _bubbles(driver, f"{group} [data-field='judge_raw_input']") == [[m["role"], m["content"]] for m in raw_input]
        assert any(preds[i] in m["content"] for m in raw_input)
        # The raw output is the server's answer to the messages of the raw input.
        sent = [b for b in map(json.loads, cli_bodies) if b["messages"] == raw_input]
        assert len(sent) == 1 and raw_output == _judge_answer(sent[0])
        # Only the judge's fields: the engine's meta data and the score name are not among them.
        fields = js(driver, "return [...document.querySelectorAll(arguments[0] + ' [data-field]')].map(e => e.dataset.field)", group)
        assert fields == ["judge_raw_output", "judge_raw_input"]
    # The raw input is folded until opened.
    raw_input = "#judge-0 [data-field='judge_raw_input']"
    assert not driver.find_element(By.CSS_SELECTOR, raw_input + " .bubble pre").is_displayed()
    driver.find_element(By.CSS_SELECTOR, raw_input + " > summary").click()
    assert driver.find_element(By.CSS_SELECTOR, raw_input + " .bubble.role-user pre").is_displayed()
    assert js(driver, "return window.__xss === undefined")
    assert not driver.find_elements(By.CSS_SELECTOR, "#judge-details script, #judge-details b, #judge-details img, #judge-details i")
    assert driver.find_element(By.CSS_SELECTOR, "#instance-scores tr[data-index='1'] a").get_attribute("href").endswith("#judge-1")
    return shown


def test_rating_template_judge_raw_output_and_input(driver, judge, tmp_path):
    """A template judge (`llm_as_judge`: the catalog's rating judge with formats.chat_api, its
    engine an OpenAI one reaching the scripted server): each instance shows its rating, the
    judge's raw output text and the chat messages it was sent (role and content), exactly as
    `unitxt-rs evaluate` gives them; the model's markup stays text."""
    url, env, take = judge
    recipe = "card=cards.explorer_judge_rating,template_card_index=0"
    preds = ["four <b>4</b>", "Lyon <img src=x onerror=\"window.__xss = 11\">", "It is <i>blue</i>."]
    cli = _cli_evaluate(recipe, preds, env, tmp_path)
    cli_bodies = take()
    assert len(cli_bodies) == len(preds)
    _evaluate_in_page(driver, url, recipe, preds)
    assert take() == cli_bodies
    main = "llama_3_70b_instruct_template_generic_single_turn"
    assert cli["global"]["score_name"] == main
    shown = _check_template_judge(driver, cli, cli_bodies, main, preds)
    assert all(0 < s <= 1 for s in shown) and len(set(shown)) > 1
    assert "<script>window.__xss = 9</script>" in _judge_text(driver, f"#judge-0 .judge-group[data-judge='{main}']", "judge_raw_output")
    js(driver, "document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", "#judge-0")
    shot(driver, "11-judge-rating")


def test_task_based_judge_raw_output_and_input(driver, judge, tmp_path):
    """A task-based template judge (`task_based_ll_mas_judge`: the catalog's faithfulness judge,
    its engine an OpenAI one reaching the scripted server) on a card with questions and
    contexts: each instance shows its groundedness score, raw output and raw input as
    `unitxt-rs evaluate` gives them, under the engine-prefixed score name; the engine's meta
    data among the scores (generated text, token counts, ...) leaves the view as it is."""
    url, env, take = judge
    recipe = "card=cards.explorer_judge_rag,template_card_index=0"
    preds = ["Four, from the <b>first</b> passage.", "Paris, it says."]
    cli = _cli_evaluate(recipe, preds, env, tmp_path)
    cli_bodies = take()
    assert len(cli_bodies) == len(preds)
    _evaluate_in_page(driver, url, recipe, preds)
    assert take() == cli_bodies
    main = "judge_model_openai_faithfulness_judge"
    assert cli["global"]["score_name"] == main
    for scores in cli["instances"]:
        assert scores[f"{main}_generated_text"] == scores[f"{main}_judge_raw_output"]
        assert isinstance(scores[f"{main}_input_tokens"], int) and scores[f"{main}_model_name"] == "judge-model"
    shown = _check_template_judge(driver, cli, cli_bodies, main, preds)
    assert len(set(shown)) > 1
    assert "<img src=x" in _judge_text(driver, f"#judge-1 .judge-group[data-judge='{main}']", "judge_raw_output")
    # The table's score column is the judge's score.
    cells = js(driver, "return [...document.querySelectorAll('#instance-scores tr[data-index] td:nth-child(4)')].map(e => e.textContent)")
    assert [float(c) for c in cells] == pytest.approx(shown, abs=1e-4)
    js(driver, "document.querySelector(arguments[0]).scrollIntoView({block: 'start'})", "#judge-0")
    shot(driver, "12-judge-task-based")
