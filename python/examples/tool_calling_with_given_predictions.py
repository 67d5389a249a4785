# Scores given tool calls against reference calls on a dataset made in code with the supervised
# tool-calling task (Unitxt's examples/evaluate_tool_calling.py, with given answers instead of a
# model): the tools go to the chat request (task_data's `__tools__`), the answers are JSON calls.
from unitxt_rs.api import create_dataset, evaluate

sum_tool = {
    "name": "add_numbers",
    "description": "Add two numbers together and return the result.",
    "parameters": {
        "type": "object",
        "properties": {
            "num1": {"type": "number", "description": "The first number to add."},
            "num2": {"type": "number", "description": "The second number to add."},
        },
        "required": ["num1", "num2"],
    },
}

subtract_tool = {
    "name": "subtract_numbers",
    "description": "Subtracts one number from another from the other.",
    "parameters": {
        "type": "object",
        "properties": {
            "num1": {"type": "number", "description": "Number to subtract from"},
            "num2": {"type": "number", "description": "Number to subtract"},
        },
        "required": ["num1", "num2"],
    },
}

data = [
    {
        "query": "What is the sum of  1212382312231231 and 834672468234768234?",
        "tools": [sum_tool, subtract_tool],
        "reference_calls": [
            {"name": "add_numbers", "arguments": {"num1": 1212382312231231, "num2": 834672468234768234}},
            {"name": "add_numbers", "arguments": {"num1": 834672468234768234, "num2": 1212382312231231}},
        ],
    },
    {
        "query": "Subtract  1212382312231231 from 834672468234768234?",
        "tools": [sum_tool, subtract_tool],
        "reference_calls": [
            {"name": "subtract_numbers", "arguments": {"num1": 834672468234768234, "num2": 1212382312231231}}
        ],
    },
    {
        "query": "What is 7 minus 5?",
        "tools": [sum_tool, subtract_tool],
        "reference_calls": [{"name": "subtract_numbers", "arguments": {"num1": 7, "num2": 5}}],
    },
]

dataset = create_dataset(
    task="tasks.tool_calling.supervised",
    test_set=data,
    split="test",
    format="formats.chat_api",
    max_test_instances=10,
)

predictions = [
    '{"name": "add_numbers", "arguments": {"num1": 834672468234768234, "num2": 1212382312231231}}',
    'Calling: {"name": "subtract_numbers", "arguments": {"num1": 1212382312231231, "num2": "834672468234768234"}}',
    '{"name": "add_numbers", "arguments": {"num1": 7, "num2": 5, "num3": 0}}',
]
results = evaluate(predictions=predictions, data=dataset)

print("Instance Results:")
print(results.instance_scores.summary)

print("Global Results:")
print(results.global_scores.summary)
