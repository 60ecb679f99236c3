// An Arena bot in Node.js: plays honestly when it can, otherwise makes a random legal move.
// Usage: node bot.js --port P   (prints "listening on 127.0.0.1:PORT" once ready)
"use strict";

const path = require("path");
const grpc = require("@grpc/grpc-js");
const protoLoader = require("@grpc/proto-loader");

const PROTO = path.join(__dirname, "..", "..", "proto", "arena", "v1", "player.proto");
const definition = protoLoader.loadSync(PROTO, { keepCase: true, defaults: true, oneofs: true });
const arena = grpc.loadPackageDefinition(definition).arena.v1;
const PROTOCOL_VERSION = 1;

function rankOf(card) {
  return card === "JK" ? "JK" : card[0];
}

function pick(items) {
  return items[Math.floor(Math.random() * items.length)];
}

// One decision: a DecisionRequest in, a Decision out.
function decide(request) {
  const legal = request.legal;
  const hand = request.hand;
  if (legal.quartets_phase) {
    return { quartets: { ranks: legal.quartets } };
  }
  if (legal.play) {
    const rank = request.phase === "PHASE_LEAD" ? pick(legal.ranks) : legal.ranks[0];
    const matching = hand.filter((card) => rankOf(card) === rank || card === "JK");
    if (matching.length > 0) {
      const cards = matching.slice(0, legal.max_cards);
      return { play: { cards, rank, count: cards.length } };
    }
  }
  const calls = [];
  if (legal.challenge) calls.push({ challenge: {} });
  if (legal.believe) calls.push({ believe: {} });
  if (legal.pass) calls.push({ pass: {} });
  if (calls.length > 0 && (!legal.play || Math.random() < 0.5)) {
    return pick(calls);
  }
  const card = pick(hand);
  return { play: { cards: [card], rank: pick(legal.ranks), count: 1 } };
}

function play(call) {
  call.on("data", (message) => {
    if (message.start) {
      // one event loop serves every stream: many matches at once cost it little
      const hello = { protocol_version: PROTOCOL_VERSION, name: "node", version: "1", max_matches: 256 };
      call.write({ hello });
    } else if (message.decide) {
      const decision = decide(message.decide);
      decision.request_id = message.decide.request_id;
      call.write({ decision });
    }
    // message.end: the match is over; the referee may start another on this stream.
  });
  call.on("end", () => call.end());
  call.on("error", () => {});
}

function main() {
  const argv = process.argv;
  const portIndex = argv.indexOf("--port");
  const port = portIndex >= 0 ? argv[portIndex + 1] : "50051";
  const server = new grpc.Server({ "grpc.max_receive_message_length": 64 * 1024 * 1024 });
  server.addService(arena.PlayerService.service, { Play: play });
  server.bindAsync(`127.0.0.1:${port}`, grpc.ServerCredentials.createInsecure(), (error, bound) => {
    if (error) {
      console.error(error.message);
      process.exit(1);
    }
    console.log(`listening on 127.0.0.1:${bound}`);
  });
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.on(signal, () => server.tryShutdown(() => process.exit(0)));
  }
}

main();
