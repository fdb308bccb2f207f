"""Scripted replies of the belief annotation stages (Tables 18-21), routed by prompt."""

from __future__ import annotations

import re

from tests.support.rules_film import fixture_film as fixture_film  # noqa: F401 (a fixture)

EVENTS = {
    "s_000": "**EVENT 1**\nDescription: Sam tells Nora the bridge is out.\nParticipants: SAM, "
    "NORA\n"
    "Witnesses: SAM, NORA, GHOST\n\nEvent 2:\nDescription: Victor says nobody leaves.\n"
    "Participants: VICTOR\nWitnesses: (none)",
    "s_001": "EVENT 1\nDescription: Sam knocks Nora out with a lamp.\nParticipants: SAM, NORA\n"
    "Witnesses: SAM\n\nEVENT 2\nDescription: Sam says he takes the ledger to Victor.\n"
    "Participants: SAM\nWitnesses: SAM, ELLEN",
}


PRESENCE = {
    ("SAM", "s_000"): "Presence: on_screen\nWitnessed event IDs: e_000_1, e_000_2, e_009_9",
    ("NORA", "s_000"): "Presence: on_screen\nWitnessed event IDs: e_000_1",
    ("VICTOR", "s_000"): "- Presence: **offscreen aware**\n- Witnessed event IDs: (none)",
    ("SAM", "s_001"): "Presence: on_screen\nWitnessed event IDs: e_001_1, e_001_2",
    ("NORA", "s_001"): "Presence: on_screen\nWitnessed event IDs: e_001_1",
    ("ELLEN", "s_001"): "I am not sure where Ellen is.",  # malformed, every attempt
}


FIRST_ORDER = {
    ("NORA", "s_000"): "TOLD\n- Proposition: the bridge is out\nSource: SAM\nBelieved: yes\n\n"
    "INFERRED\n- Claim: they are stranded for the night\nBasis: e_000_1, e_777_1\n"
    "Confidence: medium\n\nFALSE BELIEFS HELD\n- Sam is on her side\n\n"
    "REVISIONS\n(none)",
    ("NORA", "s_001"): "TOLD\n(none)\n\nINFERRED\n(none)\n\nFALSE BELIEFS HELD\n"
    "- Sam is on her side\n\nREVISIONS\n- Prior: [F1]\n"
    "Revised to: Sam is working for Victor\nTrigger: e_001_1",
    ("SAM", "s_000"): "## TOLD\n(none)\n\n**INFERRED**\n- Claim: Nora trusts him\nBasis: s_000\n"
    "Confidence: high\n\nFALSE BELIEFS HELD\n(none)\n\nREVISIONS\n(none)",
}


META = {
    (
        "SAM",
        "s_000",
    ): "- About: NORA\nClaim: NORA believes the bridge is out\nType: first_order_about_d\n"
    "Source: c_told_d\nBasis: e_000_1\nConfidence: high\n"
    "- About: VICTOR\nClaim: the valley is sealed\nType: first_order_about_d\n"
    "Source: shared_prior_context\nBasis: e_123_4\nConfidence: low\n"
    "- About: WALDO\nClaim: nothing\nType: about_self\nSource: c_told_d\n"
    "Basis: s_000\nConfidence: low",
}


def route(body: dict, number: int) -> str:
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    scene = re.search(r"Scene id: (s_\d{3})", user).group(1)
    who = re.search(r"^(?:Character|c): (\S+)", user, re.M)
    key = (who.group(1), scene) if who else None
    if "Decompose the scene" in system:
        return EVENTS.get(scene, "NO EVENTS")
    if "decide whether the character is present" in system:
        return PRESENCE.get(key, "Presence: absent_unmentioned\nWitnessed event IDs: (none)")
    if "record what the character is told" in system:
        return FIRST_ORDER.get(
            key,
            "TOLD\n(none)\n\nINFERRED\n(none)\n\nFALSE BELIEFS HELD\n(none)\n\nREVISIONS\n(none)",
        )
    return META.get(key, "NONE")
