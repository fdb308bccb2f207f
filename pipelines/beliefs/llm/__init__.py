"""The `openai` belief backend: LF-VideoQA App. D's LLM stages (Tables 18-21) through the
gateway, for one film (`film`) or many on an executor (`scaled`)."""
