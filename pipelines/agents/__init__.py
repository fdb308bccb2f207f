"""LF-VideoQA's agentic baselines (§4.3, Table 3): a model searches the film with five tools
before it answers, in three tiers (regular, fast, oracle), and every tool call is kept as the
answer's evidence trail. The tools are `pipelines.agents.tools`; the loop is
`pipelines.agents.loop`."""
