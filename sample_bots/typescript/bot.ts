// A truthful bot in TypeScript (built with tsc, run by Node.js): it plays the cards it
// claims, and challenges big claims. It speaks Arena's line protocol: one line in on
// stdin for each decision, one line out. Debug output goes to console.error (shown to
// its owner only).
import * as readline from "node:readline";

type Fields = Record<string, string>;

const items = (text: string): string[] => (text === "-" ? [] : text.split(","));
const rankOf = (card: string): string => (card === "JK" ? card : card[0]);

// Cards that make a claim of `rank` true: that rank's first, then jokers.
const matching = (hand: string[], rank: string): string[] => [
  ...hand.filter((card) => rankOf(card) === rank),
  ...hand.filter((card) => card === "JK"),
];

// The allowed rank the hand holds most of (ties: the first allowed).
function bestLeadRank(ranks: string[], hand: string[]): string {
  let best = ranks[0];
  let most = 0;
  for (const rank of ranks) {
    const held = hand.filter((card) => rankOf(card) === rank).length;
    if (held > most) [best, most] = [rank, held];
  }
  return best;
}

function decide(f: Fields): string {
  if (f.phase === "quartets") return `quartets ${f.quartets}`;
  const live = items(f.live); // author,placed,rank,count,opening
  if (f.challenge === "1" && live.length === 5 && Number(live[3]) > 2) return "challenge";
  if (f.play !== "-") {
    const ranks = items(f.play);
    const hand = items(f.hand);
    const rank = f.phase === "lead" ? bestLeadRank(ranks, hand) : ranks[0];
    const cards = matching(hand, rank).slice(0, Number(f.max_cards));
    if (cards.length === 0) return `play ${hand[0]} ${rank} 1`;
    return `play ${cards.join(",")} ${rank}`;
  }
  return f.believe === "1" ? "believe" : "challenge";
}

readline.createInterface({ input: process.stdin }).on("line", (line) => {
  const [word, ...rest] = line.split(" ");
  if (word !== "decide") return; // "start" and "end" need no answer
  const fields: Fields = Object.fromEntries(rest.map((field) => field.split("=", 2)));
  process.stdout.write(decide(fields) + "\n");
});
