"""The offline `asymmetry` belief backend: an information-asymmetry tracker over a stored
screenplay (`film`) or a ToM story (`tom`), with its readers of names, facts and referents
(docs/BELIEFS_ASYMMETRY.md)."""
