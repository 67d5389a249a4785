"""Unitxt's field types (``unitxt.types``) as names for task fields.

A task's field types travel as their names in the catalog JSON (``{"dialog": "Dialog"}``), and
the engine reads the names; these classes exist so that ``Task(input_fields={"c":
Conversation})`` is written as in Unitxt and serializes to the same JSON.
"""

from typing import Any, Dict, List

__all__ = [
    "Text", "Number", "Tool", "ToolCall", "ToolCallContext", "ToolCallTurn", "ToolOutputTurn", "TextTurn",
    "RagResponse", "Dialog", "Conversation", "Image", "Document", "MultiDocument", "Video", "Audio", "Table",
    "SQLDatabase", "JsonSchema",
]


def _type(name: str, base: type, doc: str) -> type:
    return type(name, (base,), {"__doc__": doc, "__module__": __name__})


Text = _type("Text", str, "A text (Unitxt's ``Text``).")
Number = _type("Number", float, "A number (Unitxt's ``Number``).")
JsonSchema = _type("JsonSchema", dict, "A JSON schema (Unitxt's ``JsonSchema``).")
Tool = _type("Tool", dict, "A tool description: name, description, parameters.")
ToolCall = _type("ToolCall", dict, "A tool call: name and arguments.")
ToolCallContext = _type("ToolCallContext", dict, "A tool call with its id and type.")
ToolCallTurn = _type("ToolCallTurn", dict, "An assistant turn that calls tools.")
ToolOutputTurn = _type("ToolOutputTurn", dict, "A tool's output turn.")
TextTurn = _type("TextTurn", dict, "A turn: role and content.")
RagResponse = _type("RagResponse", dict, "A RAG answer with its contexts.")
Dialog = _type("Dialog", list, "A list of turns.")
Conversation = _type("Conversation", dict, "A conversation: id and dialog.")
Image = _type("Image", dict, "An image and its format.")
Document = _type("Document", dict, "A document: title and body.")
MultiDocument = _type("MultiDocument", list, "A list of documents.")
Video = _type("Video", list, "A list of images.")
Audio = _type("Audio", dict, "An audio clip.")
Table = _type("Table", dict, "A table: header and rows.")
SQLDatabase = _type("SQLDatabase", dict, "A SQL database description.")
