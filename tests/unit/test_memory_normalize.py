from ariadnegraph.memory import EntityNormalizer, normalize_relation, singularize


def test_case_articles_and_plurals_share_one_key():
    norm = EntityNormalizer()
    assert norm.key("The Red Apples") == norm.key("a red apple") == norm.key("red apple") == "red apple"
    assert norm.key("some boxes") == "box"
    assert norm.key("berries") == "berry"
    assert norm.key("knives") == "knife"
    assert [singularize(w) for w in ("wolves", "halves", "geese")] == ["wolf", "half", "goose"]


def test_singular_words_ending_in_s_are_left_alone():
    for word in ("glass", "bus", "dress", "lens", "cactus"):
        assert singularize(word) == word


def test_only_the_last_word_is_singularised():
    assert EntityNormalizer().key("swimming fins") == "swimming fin"
    assert EntityNormalizer().key("dogs bowl") == "dogs bowl"


def test_aliases_resolve_transitively():
    norm = EntityNormalizer({"fridge": "refrigerator", "icebox": "fridge"})
    assert norm.key("the Fridge") == norm.key("icebox") == "refrigerator"


def test_names_with_commas_stay_whole():
    norm = EntityNormalizer()
    assert norm.key("Salt, pepper and chili mix") == "salt, pepper and chili mix"
    assert norm.clean("  salt,  pepper  ") == "salt, pepper"


def test_relations_lose_case_and_copula():
    assert normalize_relation("Is North_of") == "north of"
    assert normalize_relation("is") == "is"
    assert normalize_relation("  has   exit ") == "has exit"
