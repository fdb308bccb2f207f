"""The screenplay cue of each spoken line, kept beside the line: its extensions (`V.O.`,
`O.S.`, `CONT'D`) and the name as the cue wrote it, before the speaker was made canonical.

Belief annotation reads a line's voice (narration, off screen, in person; LF-VideoQA Tables
18/19) from these. Before, they were re-read from the screenplay file at the path typed at
ingest, which may have moved or changed since; now the store holds what was ingested. A table
of its own, keyed like its line, so `script_lines` keeps its columns. Lines ingested before
this migration have no cue rows (not recorded): their voices read as in person, as they did
whenever that file could not be read.
"""

from data_access.store.migrations import migration


@migration(1150, "script line cues")
def create_script_line_cues(connection) -> None:
    connection.execute(
        """CREATE TABLE script_line_cues (
            film_id VARCHAR NOT NULL,
            line_index INTEGER NOT NULL,      -- the spoken line's script_lines.line_index
            cue VARCHAR,                      -- the name as the cue wrote it
            cue_extensions VARCHAR[] NOT NULL, -- ["V.O."], ["O.S."], [] for none
            run_id VARCHAR NOT NULL,          -- the run of the line
            PRIMARY KEY (film_id, line_index, run_id)
        )"""
    )
