//! Randomised orders, recorded: a question's options and a page's questions may be shown in
//! an order drawn for each respondent. The draw is seeded from the form's signed token, so it
//! is the same on every page, after "save and continue later" and through a personal link,
//! and a respondent cannot choose it (a token's signature is the server's secret work). The
//! order shown is stored with the response, keyed by question id (its options' labels) and by
//! page (`page:0`, its questions' ids), so analysts can test for order effects; option labels
//! and question ids stay what answers and summaries use.

use std::collections::BTreeMap;

use rand::SeedableRng;
use rand::rngs::ChaCha8Rng;
use rand::seq::SliceRandom;
use sha2::{Digest, Sha256};

/// The orders one respondent was shown: question id → options in the order shown; `page:N`
/// → the page's question ids in the order shown.
pub type Order = BTreeMap<String, Vec<String>>;

/// One respondent's draw, from which each randomised order is derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Draw([u8; 32]);

impl Draw {
    /// The draw of the form whose signed token is `token` (`reference.….signature`): its
    /// signature, which only the server can make, hashed.
    pub fn of_token(token: &str) -> Self {
        let signature = token.rsplit('.').next().unwrap_or(token);
        let mut hash = Sha256::new();
        hash.update(b"canvass order\0");
        hash.update(signature.as_bytes());
        Self(hash.finalize().into())
    }

    /// An order of `count` items drawn for `what` (a question's id, a page's key): the first
    /// `count - fixed_last` shuffled uniformly, the last `fixed_last` kept in place.
    pub fn permutation(&self, what: &str, count: usize, fixed_last: usize) -> Vec<usize> {
        let mut hash = Sha256::new();
        hash.update(self.0);
        hash.update(what.as_bytes());
        let mut rng = ChaCha8Rng::from_seed(hash.finalize().into());
        let mut order: Vec<usize> = (0..count).collect();
        let moving = count.saturating_sub(fixed_last);
        order[..moving].shuffle(&mut rng);
        order
    }
}

/// The key a page's question order is recorded under.
pub fn page_key(page: usize) -> String {
    format!("page:{page}")
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn one_form_draws_the_same_order_every_time_and_forms_differ() {
        let draw = Draw::of_token("1001.acme.s.id.SIGNATURE-A");
        let again = Draw::of_token("1001.acme.s.id.SIGNATURE-A");
        assert_eq!(
            draw.permutation("drink", 8, 0),
            again.permutation("drink", 8, 0)
        );
        let others: Vec<Vec<usize>> = (0..20)
            .map(|n| Draw::of_token(&format!("1.a.s.i.sig{n}")).permutation("drink", 8, 0))
            .collect();
        assert!(others.iter().any(|order| *order != others[0]), "{others:?}");
        // Another question of the same form draws its own order.
        let orders: Vec<Vec<usize>> = (0..20)
            .map(|n| draw.permutation(&format!("q{n}"), 8, 0))
            .collect();
        assert!(orders.iter().any(|order| *order != orders[0]));
    }

    /// A chi-square test of the draw over the 24 orders of 4 options: uniform at the 0.1%
    /// level (23 degrees of freedom: the critical value is 49.73).
    #[test]
    fn the_draw_is_uniform_over_every_order() {
        let draws = 48_000;
        let mut seen: BTreeMap<Vec<usize>, u64> = BTreeMap::new();
        for n in 0..draws {
            let order = Draw::of_token(&format!("{n}.acme.s.id.sig{n}")).permutation("q", 4, 0);
            *seen.entry(order).or_default() += 1;
        }
        assert_eq!(seen.len(), 24, "every order is drawn");
        let expected = draws as f64 / 24.0;
        let chi_square: f64 = seen
            .values()
            .map(|&count| (count as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi_square < 49.73, "chi-square {chi_square}");
        // And each option in each place equally often (4 × 4 cells, 9 degrees of freedom,
        // critical value 27.88 at 0.1%).
        let mut places = [[0u64; 4]; 4];
        for (order, count) in &seen {
            for (place, option) in order.iter().enumerate() {
                places[place][*option] += count;
            }
        }
        let expected = draws as f64 / 4.0;
        let chi_square: f64 = places
            .iter()
            .flatten()
            .map(|&count| (count as f64 - expected).powi(2) / expected)
            .sum();
        assert!(chi_square < 27.88, "chi-square {chi_square}");
    }

    proptest! {
        /// An order is a permutation whose fixed last items stay where they are.
        #[test]
        fn an_order_is_a_permutation_keeping_the_last_in_place(
            token in "[a-zA-Z0-9.]{1,40}",
            count in 0usize..30,
            fixed in 0usize..5,
        ) {
            let order = Draw::of_token(&token).permutation("q", count, fixed);
            let mut sorted = order.clone();
            sorted.sort_unstable();
            prop_assert_eq!(sorted, (0..count).collect::<Vec<_>>());
            let kept = count.saturating_sub(fixed);
            for (at, item) in order.iter().enumerate().skip(kept) {
                prop_assert_eq!(*item, at);
            }
        }
    }
}
