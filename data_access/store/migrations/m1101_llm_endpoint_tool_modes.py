"""The tool-call mode each (endpoint, model) accepted: OpenAI `tools` or the prompt-level
fallback (`pipelines.llm.tool_calls`), negotiated once like the structured-output mode
(m0700) and remembered so later runs, and their cache keys, start from the mode that works."""

from data_access.store.migrations import migration


@migration(1101, "llm endpoint tool modes")
def create_llm_endpoint_tool_modes(connection) -> None:
    connection.execute(
        """CREATE TABLE llm_endpoint_tool_modes (
            base_url VARCHAR NOT NULL,        -- as configured (no credentials in it)
            model VARCHAR NOT NULL,
            tool_mode VARCHAR NOT NULL,       -- tools | tools-prompt
            reason VARCHAR,                   -- the rejection that moved it down, if any
            updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
            PRIMARY KEY (base_url, model)
        )"""
    )
