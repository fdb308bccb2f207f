"""Video chunk captions (LF-VideoQA §4.1, "Video captions": the film in 10-second chunks, each
captioned by a video-language model): one row per chunk of a caption run, with the frames it
was shown and the character names it was given (App. I), for the captions settings to read.
A run is one (film, captioner, prompt, chunk length, frame rate); the current captions of a
film and captioner are those of its latest finished run."""

from data_access.store.migrations import migration


@migration(1010, "video chunk captions")
def create_video_captions(connection) -> None:
    connection.execute(
        """CREATE TABLE video_captions (
            film_id VARCHAR NOT NULL,
            chunk_index INTEGER NOT NULL,
            start_s DOUBLE NOT NULL,
            end_s DOUBLE NOT NULL,
            caption VARCHAR NOT NULL,
            frame_times DOUBLE[] NOT NULL,    -- seconds into the film, in the order shown
            characters VARCHAR[] NOT NULL,    -- names given to the captioner (App. I)
            captioner VARCHAR NOT NULL,       -- the model
            backend VARCHAR NOT NULL,         -- <model>@<prompt version>
            cache_key VARCHAR,                -- the gateway's cache entry of the reply
            run_id VARCHAR NOT NULL,
            PRIMARY KEY (film_id, chunk_index, run_id)
        )"""
    )
    connection.execute(
        """
        CREATE OR REPLACE VIEW current_video_captions AS
        SELECT c.* FROM video_captions c
        JOIN (
            SELECT c.film_id, c.captioner, arg_max(c.run_id, r.started_at) AS run_id
            FROM (SELECT DISTINCT film_id, captioner, run_id FROM video_captions) c
            JOIN runs r USING (run_id)
            WHERE r.status = 'finished'
            GROUP BY c.film_id, c.captioner
        ) latest USING (film_id, captioner, run_id)
        """
    )
