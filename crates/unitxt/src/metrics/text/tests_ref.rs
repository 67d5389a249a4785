//! Expected values obtained by running the reference packages (nltk 3.10.4 punkt_tab, rouge_score 0.1.2,
//! sacrebleu 2.6.0, jiwer 4.0.0) on the same inputs.

use super::*;

fn v(xs: &[&str]) -> Vec<String> {
    xs.iter().map(|s| s.to_string()).collect()
}

#[test]
fn punkt_matches_nltk() {
    let p = punkt::Punkt::english_from_env().expect("punkt data");
    assert_eq!(
        p.sent_tokenize("Hello world. This is Mr. Smith's car! Is it? Yes... it is."),
        v(&[
            "Hello world.",
            "This is Mr. Smith's car!",
            "Is it?",
            "Yes... it is."
        ])
    );
    assert_eq!(
        p.sent_tokenize(
            "The U.S. economy grew 3.5% in 2020. Dr. Jones said so (he thinks.) Then he left."
        ),
        v(&[
            "The U.S. economy grew 3.5% in 2020.",
            "Dr. Jones said so (he thinks.)",
            "Then he left."
        ])
    );
    assert_eq!(
        p.sent_tokenize("\"Stop!\" she said. He didn't. 1. First item. 2. Second item."),
        v(&[
            "\"Stop!\"",
            "she said.",
            "He didn't.",
            "1.",
            "First item.",
            "2.",
            "Second item."
        ])
    );
    assert_eq!(
        p.sent_tokenize("Café déjà vu — naïve coöperation. Über alles? Ja."),
        v(&["Café déjà vu — naïve coöperation.", "Über alles?", "Ja."])
    );
    assert_eq!(
        p.sent_tokenize("no punctuation here at all"),
        v(&["no punctuation here at all"])
    );
    assert_eq!(p.sent_tokenize(""), v(&[]));
    assert_eq!(
        p.sent_tokenize("Line one\n\nLine two. And J. R. R. Tolkien wrote books. e.g. this one."),
        v(&[
            "Line one\n\nLine two.",
            "And J. R. R. Tolkien wrote books.",
            "e.g.",
            "this one."
        ])
    );
}

#[test]
fn rouge_matches_rouge_score() {
    let p = punkt::Punkt::english_from_env().expect("punkt data");
    let types = v(&["rouge1", "rouge2", "rougeL", "rougeLsum"]);
    let s = rouge::unitxt_rouge(
        "The cat sat on the mat. It was happy.",
        &v(&[
            "A cat sat on a mat. It was very happy!",
            "the cat is on the mat",
        ]),
        &types,
        Some(&p),
    )
    .unwrap();
    assert_eq!(s["rouge1"], 0.7368421052631577);
    assert_eq!(s["rouge2"], 0.47058823529411764);
    assert_eq!(s["rougeL"], 0.7368421052631577);
    assert_eq!(s["rougeLsum"], 0.7368421052631577);
    let s = rouge::unitxt_rouge("", &v(&["something here"]), &types, Some(&p)).unwrap();
    assert_eq!(s["rouge1"], 0.0);
    assert_eq!(s["rouge2"], 0.0);
    assert_eq!(s["rougeL"], 0.0);
    assert_eq!(s["rougeLsum"], 0.0);
    let s = rouge::unitxt_rouge(
        "Café naïve résumé 123 x-ray",
        &v(&["cafe naive resume 123 x ray"]),
        &types,
        Some(&p),
    )
    .unwrap();
    assert_eq!(s["rouge1"], 0.42857142857142855);
    assert_eq!(s["rouge2"], 0.3333333333333333);
    assert_eq!(s["rougeL"], 0.42857142857142855);
    assert_eq!(s["rougeLsum"], 0.42857142857142855);
    let s = rouge::unitxt_rouge(
        "police killed the gunman. the gunman was armed.",
        &v(&["the gunman killed the police. police were armed."]),
        &types,
        Some(&p),
    )
    .unwrap();
    assert_eq!(s["rouge1"], 0.75);
    assert_eq!(s["rouge2"], 0.2857142857142857);
    assert_eq!(s["rougeL"], 0.5);
    assert_eq!(s["rougeLsum"], 0.5);
}

#[test]
fn sacrebleu_matches() {
    let o = bleu::SacreBleuOptions {
        lowercase: false,
        tokenize: None,
        ..Default::default()
    };
    let st = bleu::sacrebleu_stats(
        "The cat sat on the mat.",
        &v(&["The cat is on the mat.", "There is a cat on the mat!"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 2, 1], vec![7, 6, 5, 4], 7, 7)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        48.892302243490086
    );
    let st = bleu::sacrebleu_stats(
        "Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5",
        &v(&["Hello world 3.14 1,000 and email & x - 5"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 1, 0, 0], vec![11, 10, 9, 8], 11, 10)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        9.864703138979419
    );
    let st = bleu::sacrebleu_stats("", &v(&["nothing"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![0, 0, 0, 0], vec![0, 0, 0, 0], 0, 1)
    );
    assert_eq!(bleu::sacrebleu_compute(&st, &o).unwrap().score, 0.0);
    let st = bleu::sacrebleu_stats("a b c d e f", &v(&["a b c d e f"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 5, 4, 3], vec![6, 5, 4, 3], 6, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        100.00000000000004
    );
    let st = bleu::sacrebleu_stats("مرحبا، كيف حالك؟ $5", &v(&["مرحبا كيف حالك؟ $5"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![4, 3, 2, 1], vec![5, 4, 3, 2], 5, 5)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        66.87403049764218
    );
    let o = bleu::SacreBleuOptions {
        lowercase: true,
        tokenize: None,
        ..Default::default()
    };
    let st = bleu::sacrebleu_stats(
        "The cat sat on the mat.",
        &v(&["The cat is on the mat.", "There is a cat on the mat!"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 2, 1], vec![7, 6, 5, 4], 7, 7)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        48.892302243490086
    );
    let st = bleu::sacrebleu_stats(
        "Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5",
        &v(&["Hello world 3.14 1,000 and email & x - 5"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 1, 0, 0], vec![11, 10, 9, 8], 11, 10)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        9.864703138979419
    );
    let st = bleu::sacrebleu_stats("", &v(&["nothing"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![0, 0, 0, 0], vec![0, 0, 0, 0], 0, 1)
    );
    assert_eq!(bleu::sacrebleu_compute(&st, &o).unwrap().score, 0.0);
    let st = bleu::sacrebleu_stats("a b c d e f", &v(&["a b c d e f"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 5, 4, 3], vec![6, 5, 4, 3], 6, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        100.00000000000004
    );
    let st = bleu::sacrebleu_stats("مرحبا، كيف حالك؟ $5", &v(&["مرحبا كيف حالك؟ $5"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![4, 3, 2, 1], vec![5, 4, 3, 2], 5, 5)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        66.87403049764218
    );
    let o = bleu::SacreBleuOptions {
        lowercase: false,
        tokenize: Some("intl".into()),
        ..Default::default()
    };
    let st = bleu::sacrebleu_stats(
        "The cat sat on the mat.",
        &v(&["The cat is on the mat.", "There is a cat on the mat!"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 2, 1], vec![7, 6, 5, 4], 7, 7)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        48.892302243490086
    );
    let st = bleu::sacrebleu_stats(
        "Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5",
        &v(&["Hello world 3.14 1,000 and email & x - 5"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![9, 3, 1, 0], vec![20, 19, 18, 17], 20, 10)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        10.380235015651325
    );
    let st = bleu::sacrebleu_stats("", &v(&["nothing"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![0, 0, 0, 0], vec![0, 0, 0, 0], 0, 1)
    );
    assert_eq!(bleu::sacrebleu_compute(&st, &o).unwrap().score, 0.0);
    let st = bleu::sacrebleu_stats("a b c d e f", &v(&["a b c d e f"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 5, 4, 3], vec![6, 5, 4, 3], 6, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        100.00000000000004
    );
    let st = bleu::sacrebleu_stats("مرحبا، كيف حالك؟ $5", &v(&["مرحبا كيف حالك؟ $5"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 3, 2], vec![7, 6, 5, 4], 7, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        64.34588841607616
    );
    let o = bleu::SacreBleuOptions {
        lowercase: true,
        tokenize: Some("intl".into()),
        ..Default::default()
    };
    let st = bleu::sacrebleu_stats(
        "The cat sat on the mat.",
        &v(&["The cat is on the mat.", "There is a cat on the mat!"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 2, 1], vec![7, 6, 5, 4], 7, 7)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        48.892302243490086
    );
    let st = bleu::sacrebleu_stats(
        "Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5",
        &v(&["Hello world 3.14 1,000 and email & x - 5"]),
        &o,
    )
    .unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![9, 3, 1, 0], vec![20, 19, 18, 17], 20, 10)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        10.380235015651325
    );
    let st = bleu::sacrebleu_stats("", &v(&["nothing"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![0, 0, 0, 0], vec![0, 0, 0, 0], 0, 1)
    );
    assert_eq!(bleu::sacrebleu_compute(&st, &o).unwrap().score, 0.0);
    let st = bleu::sacrebleu_stats("a b c d e f", &v(&["a b c d e f"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 5, 4, 3], vec![6, 5, 4, 3], 6, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        100.00000000000004
    );
    let st = bleu::sacrebleu_stats("مرحبا، كيف حالك؟ $5", &v(&["مرحبا كيف حالك؟ $5"]), &o).unwrap();
    assert_eq!(
        (st.counts.clone(), st.totals.clone(), st.sys_len, st.ref_len),
        (vec![6, 4, 3, 2], vec![7, 6, 5, 4], 7, 6)
    );
    assert_eq!(
        bleu::sacrebleu_compute(&st, &o).unwrap().score,
        64.34588841607616
    );
}

#[test]
fn sacrebleu_tokenizers_match() {
    assert_eq!(
        bleu::tokenize_13a("The cat sat on the mat."),
        "The cat sat on the mat ."
    );
    assert_eq!(
        bleu::tokenize_intl("The cat sat on the mat."),
        "The cat sat on the mat ."
    );
    assert_eq!(
        bleu::tokenize_13a("Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5"),
        "Hello , world ! 3.14 , 1,000 and e-mail & x-5"
    );
    assert_eq!(
        bleu::tokenize_intl("Hello, world! 3.14, 1,000 and e-mail &amp; <skipped> x-5"),
        "Hello , world ! 3.14 , 1,000 and e - mail & amp ; < skipped > x - 5"
    );
    assert_eq!(bleu::tokenize_13a(""), "");
    assert_eq!(bleu::tokenize_intl(""), "");
    assert_eq!(bleu::tokenize_13a("a b c d e f"), "a b c d e f");
    assert_eq!(bleu::tokenize_intl("a b c d e f"), "a b c d e f");
    assert_eq!(
        bleu::tokenize_13a("مرحبا، كيف حالك؟ $5"),
        "مرحبا، كيف حالك؟ $ 5"
    );
    assert_eq!(
        bleu::tokenize_intl("مرحبا، كيف حالك؟ $5"),
        "مرحبا ، كيف حالك ؟ $ 5"
    );
}

#[test]
fn wer_matches_jiwer() {
    assert_eq!(
        edit::wer_reduce(&[edit::wer_stats("the cat sat", "the cat sat on the mat")]),
        Some(0.5)
    );
    assert_eq!(
        edit::wer_reduce(&[edit::wer_stats("a  b\tc", "a b c")]),
        Some(0.6666666666666666)
    );
    assert_eq!(
        edit::wer_reduce(&[edit::wer_stats("hello there world", "hello world")]),
        Some(0.5)
    );
}

// Expected values below: Unitxt 1.26.10 classes (TokenOverlap, ANLS, NER, normalize_answer) run in
// /work/venv, and the `editdistance` package for CharEditDistance.

#[test]
fn token_overlap_and_normalize_match_unitxt() {
    assert_eq!(
        squad::token_overlap("The Cat, sat!", &v(&["a cat sat on the mat", "the dog"])),
        Some((1.0, 0.5, 0.6666666666666666))
    );
    assert_eq!(squad::token_overlap("", &v(&["x"])), Some((0.0, 0.0, 0.0)));
    assert_eq!(
        squad::token_overlap("Théâtre an the_a", &v(&["théâtre the_a"])),
        Some((1.0, 1.0, 1.0))
    );
    assert_eq!(
        squad::normalize_answer("The a-an (the) theatre, a.b An_the éa"),
        "aan theatre ab anthe éa"
    );
    assert_eq!(squad::normalize_answer("  A  banana!! "), "banana");
    assert_eq!(
        squad::squad_em_f1("the Banana", &v(&["banana!", "apple"])),
        (1.0, 1.0)
    );
    assert_eq!(squad::squad_reduce(&[(1.0, 1.0), (0.0, 0.5)]), (0.5, 0.75));
}

#[test]
fn anls_and_char_edit_match_unitxt() {
    assert_eq!(
        edit::anls("Straße", &v(&["STRASSE", "strasse"]), 0.5),
        Some(0.7142857142857143)
    );
    assert_eq!(
        edit::anls("hello world", &v(&["Hello  World "]), 0.5),
        Some(1.0)
    );
    assert_eq!(edit::anls("abc", &v(&["xyz"]), 0.5), Some(0.0));
    assert_eq!(
        edit::anls("kitten", &v(&["sitting"]), 0.5),
        Some(0.5714285714285714)
    );
    assert_eq!(edit::char_edit_distance("a b c", "abd", false), 1.0);
    assert_eq!(
        edit::char_edit_distance("a b c", "abd", true),
        0.6666666666666667
    );
    assert_eq!(
        edit::char_edit_distance("Straße ok", "strasse", true),
        0.375
    );
    assert_eq!(edit::char_edit_distance("", " ", true), 0.0);
}

#[test]
fn ner_matches_unitxt() {
    let p = |xs: &[(&str, &str)]| -> Vec<(String, String)> {
        xs.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    };
    let s1 = ner::ner_stats(
        &p(&[("John", "PER"), ("Paris", "LOC"), ("IBM", "ORG")]),
        &p(&[("John", "PER"), ("Paris", "LOC")]),
    );
    let s2 = ner::ner_stats(
        &p(&[("Mary", "PER"), ("x", "MISC")]),
        &p(&[("Mary", "PER"), ("London", "LOC")]),
    );
    let r = ner::ner_reduce(&[&s1, &s2], 0.0);
    let want = [
        ("f1_LOC", 0.6666666666666666),
        ("f1_PER", 1.0),
        ("f1_macro", 0.8333333333333333),
        ("recall_macro", 0.75),
        ("precision_macro", 1.0),
        ("in_classes_support", 0.6),
        ("f1_micro", 0.6666666666666665),
        ("recall_micro", 0.75),
        ("precision_micro", 0.6),
    ];
    for (k, x) in want {
        assert_eq!(r[k], x, "{k}");
    }
    let r1 = ner::ner_reduce(&[&s1], 0.0);
    assert_eq!(r1["in_classes_support"], 0.6666666666666667);
    assert_eq!(r1["f1_micro"], 0.8);
}

#[test]
fn nmt_bleu_hand_checked() {
    // Identical 6-token texts: all precisions 1, ratio 1, BLEU 1; a 2-token prediction has no
    // 3/4-grams, so BLEU is 0 without smoothing.
    let s = bleu::nmt_bleu_stats("a b c d e f", &v(&["a b c d e f", "a b"]), 4).unwrap();
    assert_eq!(s.reference_length, 2);
    let s = bleu::nmt_bleu_stats("a b c d e f", &v(&["a b c d e f"]), 4).unwrap();
    assert_eq!(bleu::nmt_bleu_reduce(&[&s], 4, false).unwrap().bleu, 1.0);
    let s2 = bleu::nmt_bleu_stats("a b", &v(&["a b c"]), 4).unwrap();
    let r = bleu::nmt_bleu_reduce(&[&s2], 4, false).unwrap();
    assert_eq!(
        (r.bleu, r.translation_length, r.reference_length),
        (0.0, 2, 3)
    );
}
