"""Writes provider_models.json: Unitxt 1.26.10's CrossProviderInferenceEngine.provider_model_map
(provider -> portable model name -> the provider's model name), the data cross_provider.rs reads.

Run with the Python that has Unitxt installed:  python provider_models_gen.py
"""
import json
import os

from unitxt.inference import CrossProviderInferenceEngine

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "provider_models.json"), "w") as f:
    json.dump(CrossProviderInferenceEngine.provider_model_map, f, indent=1)
    f.write("\n")
