"""The one stop-word list: function words and chat filler that say nothing about a topic.

`STOP_WORDS` is the original's list (memo keywords, store/memos.py); history search
(context/textsearch.py) drops more function words, `SEARCH_STOP_WORDS`, a superset, so a
word memo lookup ignores is ignored by search too."""

from __future__ import annotations

STOP_WORDS = frozenset(
    """
    about above after again against all and any because been before being below between both but could did does
    doing down during each few for from further had has have having here how into its just more most now off
    once only other ought our ours out own same she should some such than that the their theirs them then there
    these they this those through too under until very was were what when where which while who whom why with
    would you your yours yourself yourselves
    """.split()  # noqa: SIM905
)

SEARCH_STOP_WORDS = STOP_WORDS | frozenset(
    """
    a ain also am an are aren as at be by can cannot couldn d didn do doesn don either else ever every get gets
    got hadn hasn haven he hello her hers herself hey hi him himself his however i if in is isn it itself let
    lets like ll m me might mine much must mustn my myself neither no nor not o of often on or ourselves over
    per quite rather re really s shall shan shouldn since so t themselves though thus to up upon us ve via wasn
    we weren whatever whenever wherever whether whoever whose will within without won wouldn y yet
    """.split()  # noqa: SIM905
)
