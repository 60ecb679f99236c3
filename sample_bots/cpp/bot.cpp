// A truthful bot in C++: it plays the cards it claims, and challenges big claims.
// It speaks Arena's line protocol: one line in on stdin for each decision, one line out.
// Debug output goes to std::cerr (the bot's output, shown to its owner only).
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using Fields = std::map<std::string, std::string>;

static std::vector<std::string> items(const std::string& text) {
    std::vector<std::string> out;
    if (text == "-") return out;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');) out.push_back(item);
    return out;
}

static std::string join(const std::vector<std::string>& parts) {
    std::string out;
    for (const auto& part : parts) out += (out.empty() ? "" : ",") + part;
    return out.empty() ? "-" : out;
}

static std::string rank_of(const std::string& card) { return card == "JK" ? card : card.substr(0, 1); }

// Cards that make a claim of `rank` true: that rank's first, then jokers.
static std::vector<std::string> matching(const std::vector<std::string>& hand, const std::string& rank) {
    std::vector<std::string> out;
    for (const auto& card : hand) if (rank_of(card) == rank) out.push_back(card);
    for (const auto& card : hand) if (card == "JK") out.push_back(card);
    return out;
}

// The allowed rank the hand holds most of (ties: the first allowed).
static std::string best_lead_rank(const std::vector<std::string>& ranks, const std::vector<std::string>& hand) {
    std::string best = ranks.front();
    size_t most = 0;
    for (const auto& rank : ranks) {
        size_t held = 0;
        for (const auto& card : hand) held += rank_of(card) == rank;
        if (held > most) { most = held; best = rank; }
    }
    return best;
}

static std::string decide(Fields& f) {
    if (f["phase"] == "quartets") return "quartets " + f["quartets"];
    auto live = items(f["live"]);  // author,placed,rank,count,opening
    if (f["challenge"] == "1" && live.size() == 5 && std::stoi(live[3]) > 2) return "challenge";
    if (f["play"] != "-") {
        auto ranks = items(f["play"]);
        auto hand = items(f["hand"]);
        auto rank = f["phase"] == "lead" ? best_lead_rank(ranks, hand) : ranks.front();
        auto cards = matching(hand, rank);
        size_t most = std::stoul(f["max_cards"]);
        if (cards.size() > most) cards.resize(most);
        if (cards.empty()) return "play " + hand.front() + " " + rank + " 1";
        return "play " + join(cards) + " " + rank;
    }
    return f["believe"] == "1" ? "believe" : "challenge";
}

int main() {
    std::ios::sync_with_stdio(false);
    for (std::string line; std::getline(std::cin, line);) {
        std::stringstream words(line);
        std::string word;
        words >> word;
        if (word != "decide") continue;  // "start" and "end" need no answer
        Fields fields;
        for (std::string field; words >> field;) {
            auto at = field.find('=');
            if (at != std::string::npos) fields[field.substr(0, at)] = field.substr(at + 1);
        }
        std::cout << decide(fields) << std::endl;  // endl flushes: the referee is waiting
    }
}
