#!/usr/bin/env bash
# The project's test command. On a fresh machine it installs what the tests need:
# a Python venv with the Unitxt 1.26.10 oracle, Unitxt's catalog (through `unitxt-rs catalog
# install`), the oracle's golden outputs on ../shared/hf-hub, the Python package; then runs every
# Rust test with nextest and the Python tests with pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export HF_HUB_CACHE="${HF_HUB_CACHE:-$ROOT/../shared/hf-hub}"
export HF_HUB_OFFLINE=1
# Extra artifacts used by the oracle recipes (both Unitxt and unitxt-rs read UNITXT_CATALOGS).
export UNITXT_CATALOGS="$ROOT/tests/catalog"
export NLTK_DATA="${NLTK_DATA:-$ROOT/../shared/nltk_data}"
VENV="$ROOT/.venv"

# Some CI sandboxes have a regular file at /dev/null. Whatever is written there is then read back
# by every program that takes its stdin from /dev/null (cargo's rustc probe among them). Make it
# the character device again when we may, and keep it empty otherwise; never write to it here.
devnull_guard() {
  if [ ! -c /dev/null ]; then
    { rm -f /dev/null && mknod -m 666 /dev/null c 1 3; } 2>&1 || true
    [ -c /dev/null ] || : > /dev/null
  fi
}
devnull_guard
LOG="$ROOT/target/test-setup.log"
mkdir -p "$ROOT/target"

if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
fi
if ! "$VENV/bin/python" -c "import unitxt, sys; sys.exit(unitxt.__version__ != '1.26.10')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "unitxt==1.26.10"
fi
# Packages Unitxt's metrics need for the evaluation oracle (f1: sklearn, regex; rouge: nltk, rouge_score;
# char_edit_distance: editdistance; normalized_sacrebleu: sacrebleu).
if ! "$VENV/bin/python" -c "import sklearn, regex, nltk, rouge_score, editdistance, sacrebleu" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check scikit-learn regex nltk rouge_score editdistance sacrebleu
fi

# Packages the metrics oracle's generator (crates/unitxt/src/metrics/testdata/metrics_oracle_gen.py)
# needs besides Unitxt: fuzzywuzzy for `fuzzy_ner` (on difflib: python-Levenshtein must stay
# uninstalled, it changes fuzz.ratio), jsonschema-rs for the tool-calling metrics, pytrec_eval (the
# terrier build, which has wheels) for `rerank_recall`.
if ! "$VENV/bin/python" -c "import fuzzywuzzy, jsonschema_rs, pytrec_eval, sys; sys.exit(fuzzywuzzy.__version__ != '0.18.0')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "fuzzywuzzy==0.18.0" "jsonschema-rs==0.61.0" "pytrec-eval-terrier==0.5.11"
fi

# pandas and tabulate, pinned: pandas types the columns of Unitxt's `serialize_table_as_df_loader`
# (the oracle's goldens depend on its version), and both print the results' `.summary` tables
# (Unitxt's and ours, python/tests/test_parity.py).
if ! "$VENV/bin/python" -c "import pandas, tabulate, sys; sys.exit(pandas.__version__ != '3.1.1')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "tabulate==0.10.0" "pandas==3.1.1"
fi

# matplotlib and Pillow, pinned: Unitxt's `serialize_table_as_image` draws tables with them (the
# oracle recipes over serializers.table.image).
if ! "$VENV/bin/python" -c "import matplotlib, PIL, sys; sys.exit(matplotlib.__version__ != '3.11.2' or PIL.__version__ != '13.0.0')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "matplotlib==3.11.2" "pillow==13.0.0"
fi

# transformers and Jinja2, pinned: the chat-template formats (hf_system_format,
# granite_documents_format) are compared with transformers' apply_chat_template
# (crates/unitxt/tests/oracle_chat.rs runs the oracle itself, on a hub cache it writes).
if ! "$VENV/bin/python" -c "import transformers, jinja2, sys; sys.exit(transformers.__version__ != '5.23.0' or jinja2.__version__ != '3.1.6')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "transformers==5.23.0" "jinja2==3.1.6"
fi

# openai, pinned: crates/unitxt-cli/tests/infer_oracle.rs runs Unitxt's OpenAiInferenceEngine
# (which calls through the openai client) against a local server, and compares its requests
# with those of `unitxt-rs infer`.
if ! "$VENV/bin/python" -c "import openai, sys; sys.exit(openai.__version__ != '3.63.0')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "openai==3.63.0"
fi
# litellm, pinned: python/tests/test_inference.py compares the requests of Unitxt's
# LiteLLMInferenceEngine and CrossProviderInferenceEngine (which call through litellm) with ours.
# (Unitxt's LiteLLM engine also requires tenacity.)
if ! "$VENV/bin/python" -c "import importlib.metadata as m, sys; sys.exit(m.version('litellm') != '1.110.2' or m.version('tenacity') != '9.2.1')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "litellm==1.110.2" "tenacity==9.2.1"
fi

devnull_guard
cargo build --quiet -p unitxt-cli
# The catalog, installed the way a user installs it.
if [ ! -f "${UNITXT_RS_CATALOG:-${XDG_CACHE_HOME:-$HOME/.cache}/unitxt-rs/catalog-1.26.10}/cards/sst2.json" ]; then
  ./target/debug/unitxt-rs catalog install --python "$VENV/bin/python"
fi

# Golden outputs of the Unitxt oracle (kept in target/oracle; delete it to regenerate).
"$VENV/bin/python" scripts/oracle.py tests/oracle_recipes.tsv target/oracle
# Golden scores of Unitxt's evaluate on derived predictions (kept in target/oracle-eval).
"$VENV/bin/python" scripts/oracle_eval.py tests/oracle_eval_recipes.tsv target/oracle-eval


# The Python package (PyO3 + maturin, dev profile to reuse the debug build) and what its tests
# need: pytest, and lm-evaluation-harness for the lm-eval task test (no torch needed).
if ! "$VENV/bin/python" -c "import maturin, pytest, lm_eval" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check maturin pytest "lm_eval==0.4.13"
fi
# Ray Data for the `unitxt_rs.ray` tests: the version the package's `[ray]` extra pins.
if ! "$VENV/bin/python" -c "import ray, sys; sys.exit(ray.__version__ != '2.60.0')" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "ray[data]==2.60.0"
fi
devnull_guard
PATH="$VENV/bin:$PATH" MATURIN_PEP517_ARGS="--profile dev" \
  "$VENV/bin/pip" install --quiet --disable-pip-version-check --no-build-isolation --no-deps --force-reinstall ./python

# The explorer's browser tests: headless Chromium and its WebDriver (Debian's packages), and
# the selenium client.
if [ ! -x /usr/bin/chromedriver ]; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >>"$LOG" 2>&1
fi
if ! "$VENV/bin/python" -c "import selenium" >>"$LOG" 2>&1; then
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "selenium==4.51.0"
fi

devnull_guard
status=0
cargo nextest run --workspace --exclude unitxt-py --no-fail-fast "$@" || status=$?
devnull_guard
"$VENV/bin/python" -m pytest -q -p no:cacheprovider python/tests || status=$?
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/explorer || status=$?
exit $status
