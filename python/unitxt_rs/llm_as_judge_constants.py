"""Unitxt's ``unitxt.llm_as_judge_constants``: the criteria classes of LLM judges, the enums that
name judges, their models and providers, and the predefined criteria.

* ``Criteria``, ``CriteriaWithOptions``, ``CriteriaOption``: the artifact classes of
  :mod:`unitxt_rs.artifact` (with Unitxt's ``from_obj`` / ``from_jsons``).
* ``OptionSelectionStrategyEnum``, ``EvaluatorTypeEnum``, ``EvaluatorNameEnum``,
  ``ModelProviderEnum`` (``str`` enums), ``EVALUATOR_TO_MODEL_ID``, ``EvaluatorMetadata`` and
  ``EVALUATORS_METADATA``: the same members and values as Unitxt 1.26.10's.
* ``DirectCriteriaCatalogEnum`` / ``PairwiseCriteriaCatalogEnum`` (and ``DIRECT_CRITERIA`` /
  ``PAIRWISE_CRITERIA``, their values in order): Unitxt's member names, each member's value the
  criteria object read from the catalog artifact ``metrics.llm_as_judge.direct.criteria.<name>``
  (``...pairwise.criteria.<name>``) that Unitxt writes from that member. They are read on first
  use (a few milliseconds), so importing this module reads no catalog. As Unitxt's values, they
  are objects made in code: their ``__id__`` is ``None``, so a judge given
  ``criteria=DirectCriteriaCatalogEnum.ANSWER_RELEVANCE.value`` holds the criteria inline.

python/tests/test_judge_constants.py compares all of it with Unitxt.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, Dict, List, Optional, Tuple

from .artifact import Artifact, artifact_classes

__all__ = [
    "Criteria",
    "CriteriaOption",
    "CriteriaWithOptions",
    "OptionSelectionStrategyEnum",
    "EvaluatorTypeEnum",
    "EvaluatorNameEnum",
    "ModelProviderEnum",
    "EVALUATOR_TO_MODEL_ID",
    "EvaluatorMetadata",
    "EVALUATORS_METADATA",
    "DirectCriteriaCatalogEnum",
    "PairwiseCriteriaCatalogEnum",
    "DIRECT_CRITERIA",
    "PAIRWISE_CRITERIA",
    "get_yes_no_criteria",
    "get_likert_scale_criteria",
]

#: Unitxt's ``Criteria``: a criteria of pairwise judges (``name``, ``description``,
#: ``prediction_field``, ``context_fields``).
Criteria = artifact_classes["criteria"]
#: Unitxt's ``CriteriaWithOptions``: a criteria of direct judges (``Criteria``'s fields,
#: ``options`` and ``option_map``).
CriteriaWithOptions = artifact_classes["criteria_with_options"]
#: Unitxt's ``CriteriaOption``: one option (``name``, ``description``) of a direct criteria.
CriteriaOption = artifact_classes["criteria_option"]


class OptionSelectionStrategyEnum(str, Enum):
    """How a direct judge picks its option (Unitxt's ``OptionSelectionStrategyEnum``): from the
    answer's text, or from the options' log probabilities."""

    PARSE_OUTPUT_TEXT = "PARSE_OUTPUT_TEXT"
    PARSE_OPTION_LOGPROB = "PARSE_OPTION_LOGPROB"


class EvaluatorTypeEnum(str, Enum):
    """The two families of judges (Unitxt's ``EvaluatorTypeEnum``)."""

    PAIRWISE = "pairwise"
    DIRECT = "direct"


class EvaluatorNameEnum(str, Enum):
    """The judges' display names (Unitxt's ``EvaluatorNameEnum``; the values are those judges
    report as ``evaluator_name``, the member names Unitxt's, typos included)."""

    MIXTRAL8_7b = "Mixtral8-7b"
    MIXTRAL_LARGE = "Mixtral Large"
    LLAMA3_8B = "Llama3-8b"
    LLAMA3_1_405B = "Llama3.1-405b"
    LLAMA3_1_8B = "Llama3.1-8b"
    LLAMA3_1_70B = "Llama3.1-70b"
    LLAMA3_2_3B = "Llama3.2-3b"
    LLAMA3_3_70B = "Llama3.3-70b"
    LLAMA3_4_MAVERICK = "Llama4-Maverick"
    LLAMA3_4_SCOUT = "Llama4-Scout"
    PROMETHEUS = "Prometheus"
    GPT4o = "GPT-4o"
    GPT4_1 = "GPT-4.1"
    GPT4_1_NANO = "GPT-4.1-nano"
    GPT4_1_MINI = "GPT-4.1-mini"
    O1_PREVIEW = "o1-Preview"
    O1_MINI = "o1-Mini"
    GRANITE_13B = "Granite-13b"
    GRANITE3_2B = "Granite3.0-2b"
    GRANITE3_8B = "Granite3.0-8b"
    GRANITE3_1_2B = "Granite3.1-2b"
    GRANITE3_1_8B = "Granite3.1-8b"
    GRANITE3_2_8B = "Granite3.2-8b"
    GRANITE3_3_8B = "Granite3.3-8b"
    DEEPSEEK_V3 = "DeepSeek V3"
    GEMMA_2_5_PRO = "Gemmini 2.5 Pro"
    GEMINI_2_5_FLASH = "Gemini 2.5 Flash"


class ModelProviderEnum(str, Enum):
    """Where a judge's model is served (Unitxt's ``ModelProviderEnum``; the values are the
    providers' names as Unitxt writes them)."""

    WATSONX = "watsonx"
    OPENAI = "open-ai"
    RITS = "rits"
    AZURE = "azure"
    TOGETHER_AI = "together-ai"
    AWS = "aws"
    VERTEX_AI = "vertex-ai"
    OLLAMA = "ollama"
    REPLICATE = "replicate"


_N = EvaluatorNameEnum

#: Judge name -> the model id the cross-provider engine maps to each provider's model
#: (Unitxt's ``EVALUATOR_TO_MODEL_ID``; not every name has one).
EVALUATOR_TO_MODEL_ID: Dict[EvaluatorNameEnum, str] = {
    _N.MIXTRAL8_7b: "mixtral-8x7b-instruct-v01",
    _N.MIXTRAL_LARGE: "mistral-large-instruct",
    _N.LLAMA3_1_405B: "llama-3-1-405b-instruct",
    _N.LLAMA3_1_8B: "llama-3-1-8b-instruct",
    _N.LLAMA3_1_70B: "llama-3-1-70b-instruct",
    _N.LLAMA3_3_70B: "llama-3-3-70b-instruct",
    _N.LLAMA3_4_MAVERICK: "llama-4-maverick",
    _N.LLAMA3_4_SCOUT: "llama-4-scout",
    _N.GPT4o: "gpt-4o-2024-08-06",
    _N.GPT4_1: "gpt-4-1",
    _N.GPT4_1_NANO: "gpt-4-1-nano",
    _N.GPT4_1_MINI: "gpt-4-1-mini",
    _N.O1_PREVIEW: "o1-preview",
    _N.O1_MINI: "o1-mini",
    _N.GRANITE3_2B: "granite-3-2b-instruct",
    _N.GRANITE3_8B: "granite-3-8b-instruct",
    _N.GRANITE3_1_2B: "granite-3-1-2b-instruct",
    _N.GRANITE3_1_8B: "granite-3-1-8b-instruct",
    _N.GRANITE3_2_8B: "granite-3-2-8b-instruct",
    _N.GRANITE3_3_8B: "granite-3-3-8b-instruct",
    _N.DEEPSEEK_V3: "deepseek-v3",
    _N.GEMMA_2_5_PRO: "gemma-2-5-pro",
    _N.GEMINI_2_5_FLASH: "gemini-2-5-flash",
}


class EvaluatorMetadata:
    """A judge model and the providers that serve it (Unitxt's ``EvaluatorMetadata``).

    Attributes:
        name: The judge (an :class:`EvaluatorNameEnum` member).
        providers: The :class:`ModelProviderEnum` members serving it, in Unitxt's order.
    """

    name: EvaluatorNameEnum
    providers: List[ModelProviderEnum]

    def __init__(self, name: EvaluatorNameEnum, providers: List[ModelProviderEnum]) -> None:
        self.name = name
        self.providers = providers

    def __repr__(self) -> str:
        return f"EvaluatorMetadata(name={self.name!r}, providers={self.providers!r})"


def _metadata(table: List[Tuple[str, str]]) -> List[EvaluatorMetadata]:
    """``EvaluatorMetadata`` objects from (member name, providers' member names separated by
    spaces) pairs."""
    return [EvaluatorMetadata(_N[n], [ModelProviderEnum[p] for p in ps.split()]) for n, ps in table]


#: The judges Unitxt's catalog has, each with its providers (Unitxt's ``EVALUATORS_METADATA``,
#: same order).
EVALUATORS_METADATA: List[EvaluatorMetadata] = _metadata(
    [
        ("MIXTRAL8_7b", "RITS WATSONX"),
        ("MIXTRAL_LARGE", "RITS WATSONX AWS"),
        ("GRANITE3_8B", "WATSONX RITS"),
        ("GRANITE3_1_8B", "RITS"),
        ("GRANITE3_2_8B", "WATSONX RITS"),
        ("GRANITE3_3_8B", "WATSONX RITS OLLAMA"),
        ("GPT4o", "OPENAI AZURE"),
        ("O1_MINI", "OPENAI AZURE"),
        ("O1_PREVIEW", "OPENAI AZURE"),
        ("GPT4_1", "OPENAI AZURE REPLICATE"),
        ("GPT4_1_NANO", "OPENAI AZURE"),
        ("GPT4_1_MINI", "OPENAI AZURE"),
        ("LLAMA3_1_70B", "WATSONX TOGETHER_AI OLLAMA"),
        ("LLAMA3_1_8B", "WATSONX TOGETHER_AI RITS OLLAMA"),
        ("LLAMA3_1_405B", "WATSONX TOGETHER_AI RITS AWS OLLAMA"),
        ("LLAMA3_3_70B", "WATSONX TOGETHER_AI RITS AWS OLLAMA AZURE"),
        ("LLAMA3_4_SCOUT", "AZURE TOGETHER_AI AWS REPLICATE RITS"),
        ("LLAMA3_4_MAVERICK", "AZURE TOGETHER_AI AWS REPLICATE RITS"),
        ("DEEPSEEK_V3", "RITS TOGETHER_AI AWS"),
        ("GEMMA_2_5_PRO", "VERTEX_AI"),
        ("GEMINI_2_5_FLASH", "VERTEX_AI"),
    ]
)

# ---- predefined criteria -----------------------------------------------------------------------

#: The members of ``DirectCriteriaCatalogEnum`` in Unitxt's order, each with the name of its
#: artifact under ``metrics.llm_as_judge.direct.criteria`` (the member's value's ``name``) when
#: that is not the member name in lower case.
_DIRECT_MEMBERS: List[Tuple[str, Optional[str]]] = [
    ("TEMPERATURE", "temperature_in_celsius_and_fahrenheit"),
    ("CONCISENESS", None),
    ("ANSWER_RELEVANCE", None),
    ("HARMFULNESS", None),
    ("INSENSITIVITY", None),
    ("COHERENCE", None),
    ("IRRELEVANT_INFORMATION", None),
    ("CONVERSATIONAL", None),
    ("TRUTHFULNESS", None),
    ("MANIPULATIVE", "manipulative_email"),
    ("QUALITY", "question_answer_quality"),
    ("CONSISTENCY", None),
    ("PROFESSIONAL_TONE", None),
    ("FLUENCY", None),
    ("EFFECTIVENESS", "email_effectiveness"),
    ("GRAMMAR_AND_PUNCTUATION", None),
    ("EMPATHY", None),
    ("OBJECTIVITY", None),
    ("ENGAGEMENT", None),
    ("RELEVANCE", None),
    ("STRUCTURE", "email_structure"),
    ("EXAMPLES_AND_DETAILS", None),
    ("NATURALNESS", None),
    ("INFORMATION_FROM_REFERENCE", None),
    ("INFORMATION_OUTSIDE_REFERENCE", None),
    ("SUMMARIZATION_PREFERENCE", None),
    ("SUMMARIZATION_INFORMATIVENESS", None),
    ("SUMMARIZATION_RELEVANCE", None),
    ("SUMMARIZATION_FLUENCY", None),
    ("SUMMARIZATION_COHERENCE", None),
    ("STEP_BY_STEP_REASONING_OVERALL_QUALITY", None),
    ("STEP_BY_STEP_REASONING_COHERENCY", None),
    ("STEP_BY_STEP_REASONING_MISSING_STEPS", None),
    ("STEP_BY_STEP_REASONING_CONTRADICTION", None),
    ("STEP_BY_STEP_REASONING_BAD_GRAMMAR", None),
    ("STEP_BY_STEP_REASONING_NON_FACTUAL", None),
    ("STEP_BY_STEP_NON_COHERENT", "step_by_step_reasoning_non_coherent"),
    ("STEP_BY_STEP_BAD_FINAL_ANSWER", "step_by_step_reasoning_bad_final_answer"),
    ("STEP_BY_STEP_REASONING_HALLUCINATION", None),
    ("STEP_BY_STEP_REASONING_REDUNDANCY", None),
    ("STEP_BY_STEP_REASONING_REPETITION", None),
    ("STEP_BY_STEP_REASONING_COMMONSENSE", None),
    ("STEP_BY_STEP_REASONING_ARITHMETIC", None),
    ("REFERENCE_DOCUMENT_FAITHFULNESS", None),
    ("GENERAL_HARM_USER_MESSAGE", "user_message_general_harm"),
    ("SOCIAL_BIAS_USER_MESSAGE", "user_message_social_bias"),
    ("JAILBREAK_USER_MESSAGE", "user_message_jailbreak"),
    ("VIOLENCE_USER_MESSAGE", "user_message_violence"),
    ("PROFANITY_USER_MESSAGE", "user_message_profanity"),
    ("UNETHICAL_BEHAVIOR_USER_MESSAGE", "user_message_unethical_behavior"),
    ("GENERAL_HARM_ASSISTANT_MESSAGE", "assistant_message_general_harm"),
    ("SOCIAL_BIAS_ASSISTANT_MESSAGE", "assistant_message_social_bias"),
    ("VIOLENCE_ASSISTANT_MESSAGE", "assistant_message_violence"),
    ("PROFANITY_ASSISTANT_MESSAGE", "assistant_message_profanity"),
    ("UNETHICAL_BEHAVIOR_ASSISTANT_MESSAGE", "assistant_message_unethical_behavior"),
    ("COMPLIANCE_ASSISTANT_MESSAGE", "assistant_message_compliance"),
    ("CONTEXT_RELEVANCE_CONTEXT", "context_context_relevance"),
    ("GROUNDEDNESS_ASSISTANT_MESSAGE", "assistant_message_groundedness"),
    ("ANSWER_RELEVANCE_ASSISTANT_MESSAGE", "assistant_message_answer_relevance"),
    ("CORRECTNESS_BASED_ON_GROUND_TRUTH", None),
    ("TOXICITY", None),
    ("LOGICAL_VALIDITY_OF_REASONING", None),
    ("TRANSLATION_QUALITY", None),
]

#: The members of ``PairwiseCriteriaCatalogEnum``, as :data:`_DIRECT_MEMBERS` (artifacts under
#: ``metrics.llm_as_judge.pairwise.criteria``).
_PAIRWISE_MEMBERS: List[Tuple[str, Optional[str]]] = [
    ("TEMPERATURE", "temperature_in_celsius_and_fahrenheit"),
    ("FUNNY_JOKE", None),
    ("FACTUALLY_CONSISTENT", None),
    ("INCLUSIVITY", None),
    ("REFERENCE_DOCUMENT_FAITHFULNESS", None),
    ("SUMMARIZATION_PREFERENCE", None),
    ("EMAIL_INCLUSIVITY", None),
]


def _catalog_criteria(family: str, artifact: str) -> Artifact:
    """The criteria ``metrics.llm_as_judge.<family>.criteria.<artifact>`` read from the catalogs
    (see :func:`unitxt_rs.get_from_catalog`), as an object made in code (no ``__id__``)."""
    from . import get_from_catalog

    obj = get_from_catalog(f"metrics.llm_as_judge.{family}.criteria.{artifact}")
    obj.__id__ = None
    return obj


def _criteria_enum(name: str, family: str, members: List[Tuple[str, Optional[str]]], doc: str) -> type:
    """An ``Enum`` named ``name`` whose members are ``members``' names with the catalog's
    criteria as values.

    Raises:
        ArtifactNotFoundError: a criteria that no catalog holds (Unitxt's catalog is not
            installed, see ``unitxt-rs catalog install``).
    """
    values = [(member, _catalog_criteria(family, artifact or member.lower())) for member, artifact in members]
    enum = Enum(name, values, module=__name__, qualname=name)
    enum.__doc__ = doc
    return enum


def _direct() -> type:
    return _criteria_enum(
        "DirectCriteriaCatalogEnum",
        "direct",
        _DIRECT_MEMBERS,
        "The predefined criteria of direct judges (Unitxt's ``DirectCriteriaCatalogEnum``): each "
        "member's value is a ``CriteriaWithOptions`` read from the catalog.",
    )


def _pairwise() -> type:
    return _criteria_enum(
        "PairwiseCriteriaCatalogEnum",
        "pairwise",
        _PAIRWISE_MEMBERS,
        "The predefined criteria of pairwise judges (Unitxt's ``PairwiseCriteriaCatalogEnum``): "
        "each member's value is a ``Criteria`` read from the catalog.",
    )


#: The names made on first use, each with what makes it.
_LAZY = {
    "DirectCriteriaCatalogEnum": _direct,
    "PairwiseCriteriaCatalogEnum": _pairwise,
    "DIRECT_CRITERIA": lambda: [m.value for m in _get("DirectCriteriaCatalogEnum")],
    "PAIRWISE_CRITERIA": lambda: [m.value for m in _get("PairwiseCriteriaCatalogEnum")],
}


def _get(name: str) -> Any:
    """The module's attribute ``name``, made now if it is one of :data:`_LAZY` not made yet."""
    return globals()[name] if name in globals() else __getattr__(name)


def __getattr__(name: str) -> Any:
    """Makes the predefined criteria on first use (module ``__getattr__``, PEP 562) and keeps
    them in the module."""
    make = _LAZY.get(name)
    if make is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = make()
    globals()[name] = value
    return value


def __dir__() -> List[str]:
    return sorted(set(globals()) | set(_LAZY))


def get_yes_no_criteria(
    prediction_field: Any,
    context_fields: Any,
    name: str = "",
    description: str = "",
    bigger_is_better: bool = True,
) -> Artifact:
    """A ``CriteriaWithOptions`` with the options ``Yes`` and ``No`` (empty descriptions), ``Yes``
    scored 1.0 and ``No`` 0.0, or the reverse when ``bigger_is_better`` is false (Unitxt's
    ``get_yes_no_criteria``)."""
    yes, no = (1.0, 0.0) if bigger_is_better else (0.0, 1.0)
    return CriteriaWithOptions(
        name=name,
        description=description,
        prediction_field=prediction_field,
        context_fields=context_fields,
        options=[CriteriaOption(name="Yes", description=""), CriteriaOption(name="No", description="")],
        option_map={"Yes": yes, "No": no},
    )


def get_likert_scale_criteria(
    name: str,
    description: str,
    prediction_field: Any,
    context_fields: Any,
    *,
    low_short_description: str = "low",
    high_short_description: str = "high",
) -> Artifact:
    """A ``CriteriaWithOptions`` rating from ``"1"`` to ``"5"`` (scored 0.0, 0.25, 0.5, 0.75,
    1.0; empty option descriptions) whose description says what 1 and 5 stand for, then
    ``description`` (Unitxt's ``get_likert_scale_criteria``)."""
    grades = [str(i) for i in range(1, 6)]
    return CriteriaWithOptions(
        name=name,
        description=f"On a scale of 1 ({low_short_description}) to 5 ({high_short_description}), {description}",
        prediction_field=prediction_field,
        context_fields=context_fields,
        options=[CriteriaOption(name=g, description="") for g in grades],
        option_map={g: i / 4 for i, g in enumerate(grades)},
    )
