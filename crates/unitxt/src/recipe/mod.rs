//! Recipes (Unitxt's `DatasetRecipe`): a card mixed with a template, format, system prompt,
//! demos and augmentors, run as a pipeline of streams.
