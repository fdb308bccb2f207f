"""What the belief annotation parsers could not use ("parsers ... that tolerate small
deviations and record what they could not parse"): one row per problem, per LLM call."""

from data_access.store.migrations import migration


@migration(300, "belief parse issues")
def create_belief_parse_issues(connection) -> None:
    connection.execute(
        """CREATE TABLE belief_parse_issues (
            run_id VARCHAR NOT NULL,
            item_id VARCHAR NOT NULL,        -- the gateway item: <film>:s<scene>:<char>:<stage>
            stage VARCHAR NOT NULL,          -- events | presence | first_order | meta
            issue VARCHAR NOT NULL
        )"""
    )
