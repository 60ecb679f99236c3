// A truthful bot in JavaScript (Node.js): it plays the cards it claims, and challenges
// big claims. It speaks Arena's line protocol: one line in on stdin for each decision,
// one line out. Debug output goes to console.error (shown to its owner only).
"use strict";
const fs = require("node:fs");

const items = (text) => (text === "-" ? [] : text.split(","));
const rankOf = (card) => (card === "JK" ? card : card[0]);

// Cards that make a claim of `rank` true: that rank's first, then jokers.
const matching = (hand, rank) => [
  ...hand.filter((card) => rankOf(card) === rank),
  ...hand.filter((card) => card === "JK"),
];

// The allowed rank the hand holds most of (ties: the first allowed).
function bestLeadRank(ranks, hand) {
  let best = ranks[0];
  let most = 0;
  for (const rank of ranks) {
    const held = hand.filter((card) => rankOf(card) === rank).length;
    if (held > most) [best, most] = [rank, held];
  }
  return best;
}

function decide(f) {
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

// Lines are read with a blocking read, not an event loop: between decisions the
// program sleeps in read(), and each decision costs two system calls (about half the CPU
// of readline's streams on a busy machine).
function answersTo(lines) {
  let answers = "";
  for (const line of lines) {
    const [word, ...rest] = line.split(" ");
    if (word !== "decide") continue; // "start" and "end" need no answer
    const fields = Object.fromEntries(rest.map((field) => field.split("=", 2)));
    answers += decide(fields) + "\n";
  }
  return answers;
}

const chunk = Buffer.alloc(1 << 16);
const pause = new Int32Array(new SharedArrayBuffer(4));
let pending = "";
for (;;) {
  let count;
  try {
    count = fs.readSync(0, chunk, 0, chunk.length, null);
  } catch (error) {
    if (error.code === "EAGAIN") {
      Atomics.wait(pause, 0, 0, 5); // an input that does not block: ask again in 5 ms
      continue;
    }
    if (error.code === "EOF") break;
    throw error;
  }
  if (count === 0) break; // the platform closed the input: the program's work is over
  const lines = (pending + chunk.toString("utf8", 0, count)).split("\n");
  pending = lines.pop();
  const answers = answersTo(lines);
  if (answers) fs.writeSync(1, answers);
}
