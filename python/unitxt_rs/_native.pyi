"""Type stubs of the compiled extension module (crates/unitxt-py)."""

from typing import List, Optional, Tuple

class SplitStream:
    """A split being prepared; pulled in Arrow IPC chunks."""

    @property
    def name(self) -> str: ...
    def next_batch(self, size: int = 2048) -> Optional[bytes]:
        """The next chunk of up to `size` instances as Arrow IPC stream bytes; None at the end."""

def prepare(recipe: Optional[str], args_json: Optional[str], split: Optional[str], catalog_dirs: List[str]) -> List[SplitStream]:
    """Runs a recipe; one stream per split (only `split` when given)."""

def evaluate(
    predictions_json: str,
    data_ipc: Optional[bytes],
    data_json: Optional[str],
    catalog_dirs: List[str],
    confidence_intervals: bool = True,
) -> str:
    """Scores predictions; returns JSON text with global, instances, subsets, groups, summary, processed."""

def run_steps(steps_json: str, streams_json: str, catalog_dirs: List[str], confidence_intervals: bool = True) -> str:
    """Runs operator and metric steps (a JSON list of artifacts) on named streams (a JSON object of split name to instance dicts); the streams after them, as JSON text of the same shape."""

def post_process(predictions_json: str, data_ipc: Optional[bytes], data_json: Optional[str], catalog_dirs: List[str]) -> str:
    """Each prediction after its instance's postprocessors, as a JSON array."""

def infer(
    engine_json: str,
    data_ipc: Optional[bytes],
    data_json: Optional[str],
    catalog_dirs: List[str],
    cache_path: Optional[str] = None,
    progress: bool = False,
    log_probs: bool = False,
    meta_data: bool = False,
) -> str:
    """Runs an inference engine (its JSON, or a catalog name as a JSON string) on the data (its log probabilities with ``log_probs``); a JSON object with ``predictions`` and ``meta_data`` (``TextGenerationInferenceOutput`` fields per instance when ``meta_data``)."""

def known_types() -> List[Tuple[str, Optional[List[str]]]]:
    """Every artifact __type__ the engine builds, with the keyword arguments it reads (None: not known)."""

def dataset_schema_ipc() -> bytes:
    """An empty Arrow IPC stream with the schema of prepared splits."""

def get_from_catalog(name: str, catalog_dirs: List[str]) -> str:
    """The JSON text of a catalog artifact."""

def default_catalog_dir() -> str: ...
def unitxt_version() -> str: ...
def set_seed(seed: int) -> None: ...
def get_seed() -> int: ...
def register_type(name: str, definition: str) -> None: ...
def registered_types() -> List[Tuple[str, str]]: ...

# ---- unitxt_rs.ray: a recipe run in two halves (crates/unitxt-py/src/ray.rs) ----

class StagedSplit:
    """A split run up to its per-instance stages (loader, stream-level card steps, demos pool,
    max_*_instances), pulled in Arrow IPC chunks with the columns `index` and `instance` (JSON)."""

    @property
    def name(self) -> str: ...
    def demos_pool_json(self) -> Optional[str]:
        """The demos pool as JSON text (a list of processed instances); None without demos."""
    def next_batch(self, size: int = 2048) -> Optional[bytes]:
        """The next chunk of up to `size` staged instances as Arrow IPC bytes; None at the end."""

def stage(recipe: Optional[str], args_json: Optional[str], split: str, catalog_dirs: List[str]) -> StagedSplit:
    """Runs the stream-level half of a recipe for `split` (UnsupportedError for a benchmark)."""

class InstanceWorker:
    """The per-instance half of a recipe for one split, built from the recipe's arguments and
    the demos pool `stage` took; reads no data."""

    def __init__(
        self,
        recipe: Optional[str],
        args_json: Optional[str],
        split: str,
        catalog_dirs: List[str],
        demos_pool_json: Optional[str] = None,
    ) -> None: ...
    def process(self, staged_ipc: bytes) -> bytes:
        """Staged instances (Arrow IPC, as `StagedSplit.next_batch` gives) to prepared rows
        (Arrow IPC with load_dataset's columns), in order, with the GIL released."""
