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

def post_process(predictions_json: str, data_ipc: Optional[bytes], data_json: Optional[str], catalog_dirs: List[str]) -> str:
    """Each prediction after its instance's postprocessors, as a JSON array."""

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
