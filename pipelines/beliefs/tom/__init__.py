"""The ToM datasets (Hi-ToM, OpenToM, BigToM, PercepToM): their readers, the event model, the
symbolic belief tracker, its scoring and the import of stories with tracker-computed records."""
