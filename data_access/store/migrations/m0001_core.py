"""The core schema: every table both papers produce, with provenance on every derived row.

Naming: `film_id` covers films, TV episodes and ToM stories (a story is a film whose scenes are
sentences). Scene and line indices are the 0-based order within the film. Every derived row
names the `run_id` that made it; runs append, so tables that a step can redo carry `run_id` in
their key and "current" views (m0002) pick the latest finished run.
"""

from data_access.store.migrations import migration

CORE_TABLES = [
    # -- provenance ----------------------------------------------------------------------
    """CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY,
        step VARCHAR NOT NULL,            -- import.lfvqa, preprocess, judge, generate, ...
        backend VARCHAR,                  -- openai | lexical | rules | template | import | ...
        model VARCHAR,
        prompt_version VARCHAR,
        params JSON,
        source VARCHAR,                   -- what the run read (file, dir, slice)
        reported_by_paper BOOLEAN DEFAULT FALSE,
        status VARCHAR NOT NULL DEFAULT 'running',   -- running | finished | failed | stopped
        started_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        finished_at TIMESTAMP,
        n_items INTEGER,
        n_failed INTEGER,
        prompt_tokens BIGINT DEFAULT 0,
        completion_tokens BIGINT DEFAULT 0,
        cost_usd DOUBLE DEFAULT 0,
        note VARCHAR
    )""",
    """CREATE TABLE jobs (
        job_id VARCHAR PRIMARY KEY,
        kind VARCHAR NOT NULL,            -- judge | generate | ...
        params JSON,
        state VARCHAR NOT NULL DEFAULT 'queued',  -- queued | running | finished | failed | stopped
        run_id VARCHAR,
        done INTEGER DEFAULT 0,
        failed INTEGER DEFAULT 0,
        total INTEGER DEFAULT 0,
        cost_usd DOUBLE DEFAULT 0,
        tokens BIGINT DEFAULT 0,
        pid INTEGER,
        error VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp,
        updated_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )""",
    # -- films and preprocessing (LF-VideoQA §3.1, App. C; StoryMindv2 §3.1) ---------------
    """CREATE TABLE datasets (
        dataset_id VARCHAR PRIMARY KEY,   -- lfvqa_paper, storyvideoqa, hitom, ...
        name VARCHAR NOT NULL,
        kind VARCHAR NOT NULL,            -- lfvqa | storyvideoqa | tom | judge_labels | synthetic
        source VARCHAR,                   -- where it came from
        licence VARCHAR,
        reported_by_paper BOOLEAN DEFAULT FALSE,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE films (
        film_id VARCHAR PRIMARY KEY,
        dataset_id VARCHAR NOT NULL,
        title VARCHAR NOT NULL,
        year INTEGER,
        kind VARCHAR NOT NULL,            -- film | episode | story
        series VARCHAR,
        season INTEGER,
        episode INTEGER,
        runtime_s DOUBLE,
        source VARCHAR,
        video_path VARCHAR,
        fps DOUBLE,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE scenes (
        film_id VARCHAR NOT NULL,
        scene_index INTEGER NOT NULL,
        heading VARCHAR,
        location VARCHAR,
        time_of_day VARCHAR,
        start_s DOUBLE,
        end_s DOUBLE,
        time_source VARCHAR,              -- matched | interpolated | reported | none
        summary VARCHAR,
        summary_backend VARCHAR,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, scene_index, run_id)
    )""",
    """CREATE TABLE script_lines (
        film_id VARCHAR NOT NULL,
        line_index INTEGER NOT NULL,
        scene_index INTEGER,
        kind VARCHAR NOT NULL,            -- direction | dialogue
        character VARCHAR,
        parenthetical VARCHAR,
        text VARCHAR NOT NULL,
        start_s DOUBLE,
        end_s DOUBLE,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, line_index, run_id)
    )""",
    """CREATE TABLE characters (
        film_id VARCHAR NOT NULL,
        character_id VARCHAR NOT NULL,
        canonical_name VARCHAR NOT NULL,
        aliases VARCHAR[],
        first_spoken_s DOUBLE,            -- when the name is first spoken aloud (name budget)
        merge_evidence JSON,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, character_id, run_id)
    )""",
    """CREATE TABLE subtitles (
        film_id VARCHAR NOT NULL,
        cue_index INTEGER NOT NULL,
        start_s DOUBLE NOT NULL,
        end_s DOUBLE NOT NULL,
        text VARCHAR NOT NULL,
        matched_line INTEGER,             -- script line index the cue belongs to
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, cue_index, run_id)
    )""",
    # -- belief records (LF-VideoQA §3.1, App. D, Tables 18–21) ---------------------------
    """CREATE TABLE scene_events (
        film_id VARCHAR NOT NULL,
        event_id VARCHAR NOT NULL,        -- e_017_3
        scene_index INTEGER NOT NULL,
        ord INTEGER NOT NULL,
        description VARCHAR NOT NULL,
        participants VARCHAR[],
        witnesses VARCHAR[],
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, event_id, run_id)
    )""",
    """CREATE TABLE presence (
        film_id VARCHAR NOT NULL,
        scene_index INTEGER NOT NULL,
        character VARCHAR NOT NULL,
        status VARCHAR NOT NULL,          -- on_screen | offscreen_aware | offscreen_unaware | absent_unmentioned
        witnessed_events VARCHAR[],
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, scene_index, character, run_id)
    )""",
    """CREATE TABLE beliefs (
        film_id VARCHAR NOT NULL,
        belief_id VARCHAR NOT NULL,       -- stable tag carried scene to scene ([B3], [F1], ...)
        holder VARCHAR NOT NULL,
        scene_index INTEGER NOT NULL,     -- scene where the belief forms
        kind VARCHAR NOT NULL,            -- witnessed | told | inferred | false | revised
        content VARCHAR NOT NULL,
        source_character VARCHAR,         -- for told
        believed BOOLEAN,                 -- for told: accepted or rejected
        basis VARCHAR[],                  -- event / scene ids
        confidence VARCHAR,
        is_false BOOLEAN DEFAULT FALSE,
        revises VARCHAR,                  -- belief_id this one revises
        revised_at_scene INTEGER,         -- scene where it stops holding (NULL: held to the end)
        trigger VARCHAR,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, belief_id, holder, run_id)
    )""",
    """CREATE TABLE meta_beliefs (
        film_id VARCHAR NOT NULL,
        meta_id VARCHAR NOT NULL,
        holder VARCHAR NOT NULL,          -- c
        about VARCHAR NOT NULL,           -- d
        scene_index INTEGER NOT NULL,
        claim VARCHAR NOT NULL,
        type VARCHAR NOT NULL,            -- first_order_about_d | about_self | about_third_party
        change VARCHAR,                   -- new | changed
        source VARCHAR,                   -- one of the six sources of Table 21
        basis VARCHAR[],
        confidence VARCHAR,
        order_depth INTEGER DEFAULT 2,    -- nesting order (ToM datasets go to 4)
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, meta_id, run_id)
    )""",
    # -- questions and rubrics (§3.2, App. F) ----------------------------------------------
    """CREATE TABLE context_sets (
        context_set_id VARCHAR PRIMARY KEY,
        film_id VARCHAR NOT NULL,
        qtype VARCHAR NOT NULL,
        center VARCHAR NOT NULL,
        anchor_scene INTEGER,
        payload JSON NOT NULL,
        discard_reason VARCHAR,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE questions (
        question_id VARCHAR PRIMARY KEY,
        film_id VARCHAR NOT NULL,
        qtype VARCHAR NOT NULL,           -- Q1..Q8, N1..N3
        center VARCHAR NOT NULL,
        anchor_scene INTEGER,
        anchor_time_s DOUBLE,
        anchor_location VARCHAR,
        status VARCHAR NOT NULL,          -- released | candidate | retired
        text VARCHAR NOT NULL,
        gold VARCHAR,
        source VARCHAR NOT NULL,          -- paper | generated | synthetic | imported
        context_set_id VARCHAR,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE rubric_claims (
        claim_id VARCHAR PRIMARY KEY,
        question_id VARCHAR NOT NULL,
        ord INTEGER NOT NULL,             -- 1-based claim number as printed
        role VARCHAR NOT NULL,            -- core | context
        text VARCHAR NOT NULL,
        evidence_scenes INTEGER[],
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE question_evidence (
        question_id VARCHAR NOT NULL,
        ord INTEGER NOT NULL,
        time_s DOUBLE,
        location VARCHAR,
        scene_index INTEGER,
        claim_ords INTEGER[],
        is_anchor BOOLEAN DEFAULT FALSE,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (question_id, ord)
    )""",
    # -- answers and the judge (§3.3, §4, App. F.2, App. G) -------------------------------
    """CREATE TABLE settings (
        setting_id VARCHAR PRIMARY KEY,
        source VARCHAR NOT NULL,          -- screenplay | subtitles | captions | captions+subtitles | video | video+subtitles | agent
        answerer VARCHAR,
        captioner VARCHAR,
        tier VARCHAR,                     -- agent tier: oracle | fast | regular
        label VARCHAR NOT NULL,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE answers (
        answer_id VARCHAR PRIMARY KEY,
        question_id VARCHAR NOT NULL,
        setting_id VARCHAR NOT NULL,
        text VARCHAR NOT NULL,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE judges (
        judge_id VARCHAR PRIMARY KEY,     -- model + prompt version, or lexical / human
        kind VARCHAR NOT NULL,            -- llm | lexical | human | predictor
        backend VARCHAR,
        model VARCHAR,
        prompt_version VARCHAR,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE claim_verdicts (
        run_id VARCHAR NOT NULL,
        judge_id VARCHAR NOT NULL,
        answer_id VARCHAR NOT NULL,
        claim_id VARCHAR NOT NULL,
        verdict VARCHAR NOT NULL,         -- asserted | contradicted | omitted (+ partial, unverifiable for FABLES)
        rationale VARCHAR,
        PRIMARY KEY (run_id, answer_id, claim_id)
    )""",
    """CREATE TABLE reported_results (
        dataset_id VARCHAR NOT NULL,
        table_ref VARCHAR NOT NULL,       -- e.g. 'LF-VideoQA Table 4'
        setting_label VARCHAR,
        setting_id VARCHAR,
        qtype VARCHAR,                    -- NULL: all types
        metric VARCHAR NOT NULL,          -- recall | precision | f1 | contradiction | kappa | ...
        value DOUBLE NOT NULL,
        ci_halfwidth DOUBLE,
        note VARCHAR,
        run_id VARCHAR NOT NULL
    )""",
    # -- StoryVideoQA / StoryMindv2 / PlotTree ----------------------------------------------
    """CREATE TABLE mcq_questions (
        mcq_id VARCHAR PRIMARY KEY,       -- <source>:<vid>:<id>
        dataset_id VARCHAR NOT NULL,
        set_name VARCHAR NOT NULL,        -- golden | generated | synthetic
        source VARCHAR NOT NULL,          -- Friends | BigBang | GOT | Movie
        vid VARCHAR NOT NULL,
        qid INTEGER,
        question VARCHAR NOT NULL,
        choices VARCHAR[] NOT NULL,
        gt VARCHAR NOT NULL,
        option VARCHAR NOT NULL,          -- A..E
        question_type VARCHAR,            -- P | I
        story_element VARCHAR,            -- C A L CA CL AL CAL
        characters VARCHAR[],
        locations VARCHAR[],
        times VARCHAR[],                  -- evidence spans as released (HH:MM:SS-HH:MM:SS)
        evidence_seconds DOUBLE,          -- total length of the evidence spans
        gemini_check JSON,
        claude_check JSON,
        gpt_check JSON,
        extra JSON,
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE mcq_predictions (
        mcq_id VARCHAR NOT NULL,
        method VARCHAR NOT NULL,
        predicted_option VARCHAR,
        correct BOOLEAN,
        -- No PRIMARY KEY: at StoryVideoQA scale (363k questions x 20 methods) an ART index makes
        -- bulk loads 5x slower; importers check (mcq_id, method) uniqueness in SQL instead.
        run_id VARCHAR NOT NULL
    )""",
    """CREATE TABLE mcq_difficulty (
        mcq_id VARCHAR NOT NULL,
        d_q DOUBLE,
        d_a DOUBLE,
        d_qa DOUBLE,
        d DOUBLE,
        bin INTEGER,
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (mcq_id, run_id)
    )""",
    """CREATE TABLE plottree_nodes (
        film_id VARCHAR NOT NULL,
        node_id VARCHAR NOT NULL,
        parent_id VARCHAR,
        level INTEGER NOT NULL,           -- 0 = leaves
        start_s DOUBLE,
        end_s DOUBLE,
        leaf_indices INTEGER[],
        keyframes INTEGER[],
        summary VARCHAR,
        summary_backend VARCHAR,
        children VARCHAR[],
        characters VARCHAR[],
        run_id VARCHAR NOT NULL,
        PRIMARY KEY (film_id, node_id, run_id)
    )""",
    # -- embeddings and the LLM cache -------------------------------------------------------
    """CREATE TABLE embeddings (
        run_id VARCHAR NOT NULL,
        item_kind VARCHAR NOT NULL,       -- question | claim | plottree_node | mcq | fault
        item_id VARCHAR NOT NULL,
        model VARCHAR NOT NULL,
        vector FLOAT[],
        x DOUBLE,                         -- 2-D projection (UMAP) stored with the run
        y DOUBLE,
        PRIMARY KEY (run_id, item_kind, item_id)
    )""",
    """CREATE TABLE llm_cache (
        cache_key VARCHAR PRIMARY KEY,    -- sha256 of (model, messages, params)
        model VARCHAR NOT NULL,
        request JSON NOT NULL,
        response JSON NOT NULL,
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )""",
    """CREATE TABLE llm_calls (
        run_id VARCHAR NOT NULL,
        item_id VARCHAR NOT NULL,
        cache_key VARCHAR,
        cached BOOLEAN NOT NULL,
        status VARCHAR NOT NULL,          -- ok | failed
        prompt_tokens INTEGER,
        completion_tokens INTEGER,
        cost_usd DOUBLE,
        latency_ms DOUBLE,
        attempts INTEGER,
        error VARCHAR,
        raw_reply VARCHAR,
        created_at TIMESTAMP NOT NULL DEFAULT current_timestamp
    )""",
]


@migration(1, "core tables")
def create_core_tables(connection) -> None:
    for statement in CORE_TABLES:
        connection.execute(statement)
