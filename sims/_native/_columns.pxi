# Generated from the results schema by python -m sims.columns; do not edit: change the
# schema, then run python -m sims.columns and rebuild (pip install -e .).

cdef enum:
    BASE_STUDY = 0
    BASE_CELL = 1
    BASE_VARIANT = 2
    BASE_PLAYERS = 3
    BASE_GAME_INDEX = 4
    BASE_SEED = 5
    BASE_SLOTS = 6
    GAMES_STUDY = 0
    GAMES_CELL = 1
    GAMES_VARIANT = 2
    GAMES_PLAYERS = 3
    GAMES_GAME_INDEX = 4
    GAMES_SEED = 5
    GAMES_SEATS = 6
    GAMES_WINNERS = 7
    GAMES_WINNER_STRATEGIES = 8
    GAMES_N_WINNERS = 9
    GAMES_TURNS = 10
    GAMES_ROUNDS = 11
    GAMES_SIM_MINUTES = 12
    GAMES_STEALS = 13
    GAMES_FAILED = 14
    GAMES_FAILURE_SEAT = 15
    GAMES_FAILURE_STRATEGY = 16
    GAMES_FAILURE_ERROR = 17
    SEATS_STUDY = 0
    SEATS_CELL = 1
    SEATS_VARIANT = 2
    SEATS_PLAYERS = 3
    SEATS_GAME_INDEX = 4
    SEATS_SEED = 5
    SEATS_SEAT = 6
    SEATS_STRATEGY = 7
    SEATS_SCORE = 8
    SEATS_DESTINATION_POINTS = 9
    SEATS_PENALTIES = 10
    SEATS_BONUS_POINTS = 11
    SEATS_BIG_CITIES = 12
    SEATS_N_BIG_CITIES = 13
    SEATS_KEPT = 14
    SEATS_REACHED = 15
    SEATS_UNREACHED = 16
    SEATS_IS_WINNER = 17
    SEATS_WIN_SHARE = 18
    SEATS_RANK = 19
    SEATS_HAND_LEFT = 20
    SEATS_CIRCULATION_END = 21
    SEATS_STEALS_MADE = 22
    SEATS_STEALS_SUFFERED = 23
    SEATS_ROUND1_POINTS = 24
    SEATS_ROUND2_POINTS = 25
    DESTINATIONS_STUDY = 0
    DESTINATIONS_CELL = 1
    DESTINATIONS_VARIANT = 2
    DESTINATIONS_PLAYERS = 3
    DESTINATIONS_GAME_INDEX = 4
    DESTINATIONS_SEED = 5
    DESTINATIONS_SEAT = 6
    DESTINATIONS_DESTINATION_ID = 7
    DESTINATIONS_OFFERED_TURN = 8
    DESTINATIONS_OFFERED_ROUND = 9
    DESTINATIONS_KEPT = 10
    DESTINATIONS_STRATEGY = 11
    DESTINATIONS_POINTS = 12
    DESTINATIONS_CARDS = 13
    DESTINATIONS_REACHED = 14
    DESTINATIONS_REACHED_ROUND = 15
    DESTINATIONS_NET_POINTS = 16

# each table's column names in block order (sims.rows reads a block by them)
COLUMNS = {
    "games": (
        "study", "cell", "variant", "players", "game_index", "seed", "seats", "winners",
        "winner_strategies", "n_winners", "turns", "rounds", "sim_minutes", "steals", "failed",
        "failure_seat", "failure_strategy", "failure_error",
    ),
    "seats": (
        "study", "cell", "variant", "players", "game_index", "seed", "seat", "strategy",
        "score", "destination_points", "penalties", "bonus_points", "big_cities",
        "n_big_cities", "kept", "reached", "unreached", "is_winner", "win_share", "rank",
        "hand_left", "circulation_end", "steals_made", "steals_suffered", "round1_points",
        "round2_points",
    ),
    "destinations": (
        "study", "cell", "variant", "players", "game_index", "seed", "seat", "destination_id",
        "offered_turn", "offered_round", "kept", "strategy", "points", "cards", "reached",
        "reached_round", "net_points",
    ),
}


cdef inline dict column_values():
    """The positions as this module was compiled with them (tests/test_contract.py)."""
    return {
        "BASE_STUDY": BASE_STUDY,
        "BASE_CELL": BASE_CELL,
        "BASE_VARIANT": BASE_VARIANT,
        "BASE_PLAYERS": BASE_PLAYERS,
        "BASE_GAME_INDEX": BASE_GAME_INDEX,
        "BASE_SEED": BASE_SEED,
        "BASE_SLOTS": BASE_SLOTS,
        "GAMES_STUDY": GAMES_STUDY,
        "GAMES_CELL": GAMES_CELL,
        "GAMES_VARIANT": GAMES_VARIANT,
        "GAMES_PLAYERS": GAMES_PLAYERS,
        "GAMES_GAME_INDEX": GAMES_GAME_INDEX,
        "GAMES_SEED": GAMES_SEED,
        "GAMES_SEATS": GAMES_SEATS,
        "GAMES_WINNERS": GAMES_WINNERS,
        "GAMES_WINNER_STRATEGIES": GAMES_WINNER_STRATEGIES,
        "GAMES_N_WINNERS": GAMES_N_WINNERS,
        "GAMES_TURNS": GAMES_TURNS,
        "GAMES_ROUNDS": GAMES_ROUNDS,
        "GAMES_SIM_MINUTES": GAMES_SIM_MINUTES,
        "GAMES_STEALS": GAMES_STEALS,
        "GAMES_FAILED": GAMES_FAILED,
        "GAMES_FAILURE_SEAT": GAMES_FAILURE_SEAT,
        "GAMES_FAILURE_STRATEGY": GAMES_FAILURE_STRATEGY,
        "GAMES_FAILURE_ERROR": GAMES_FAILURE_ERROR,
        "SEATS_STUDY": SEATS_STUDY,
        "SEATS_CELL": SEATS_CELL,
        "SEATS_VARIANT": SEATS_VARIANT,
        "SEATS_PLAYERS": SEATS_PLAYERS,
        "SEATS_GAME_INDEX": SEATS_GAME_INDEX,
        "SEATS_SEED": SEATS_SEED,
        "SEATS_SEAT": SEATS_SEAT,
        "SEATS_STRATEGY": SEATS_STRATEGY,
        "SEATS_SCORE": SEATS_SCORE,
        "SEATS_DESTINATION_POINTS": SEATS_DESTINATION_POINTS,
        "SEATS_PENALTIES": SEATS_PENALTIES,
        "SEATS_BONUS_POINTS": SEATS_BONUS_POINTS,
        "SEATS_BIG_CITIES": SEATS_BIG_CITIES,
        "SEATS_N_BIG_CITIES": SEATS_N_BIG_CITIES,
        "SEATS_KEPT": SEATS_KEPT,
        "SEATS_REACHED": SEATS_REACHED,
        "SEATS_UNREACHED": SEATS_UNREACHED,
        "SEATS_IS_WINNER": SEATS_IS_WINNER,
        "SEATS_WIN_SHARE": SEATS_WIN_SHARE,
        "SEATS_RANK": SEATS_RANK,
        "SEATS_HAND_LEFT": SEATS_HAND_LEFT,
        "SEATS_CIRCULATION_END": SEATS_CIRCULATION_END,
        "SEATS_STEALS_MADE": SEATS_STEALS_MADE,
        "SEATS_STEALS_SUFFERED": SEATS_STEALS_SUFFERED,
        "SEATS_ROUND1_POINTS": SEATS_ROUND1_POINTS,
        "SEATS_ROUND2_POINTS": SEATS_ROUND2_POINTS,
        "DESTINATIONS_STUDY": DESTINATIONS_STUDY,
        "DESTINATIONS_CELL": DESTINATIONS_CELL,
        "DESTINATIONS_VARIANT": DESTINATIONS_VARIANT,
        "DESTINATIONS_PLAYERS": DESTINATIONS_PLAYERS,
        "DESTINATIONS_GAME_INDEX": DESTINATIONS_GAME_INDEX,
        "DESTINATIONS_SEED": DESTINATIONS_SEED,
        "DESTINATIONS_SEAT": DESTINATIONS_SEAT,
        "DESTINATIONS_DESTINATION_ID": DESTINATIONS_DESTINATION_ID,
        "DESTINATIONS_OFFERED_TURN": DESTINATIONS_OFFERED_TURN,
        "DESTINATIONS_OFFERED_ROUND": DESTINATIONS_OFFERED_ROUND,
        "DESTINATIONS_KEPT": DESTINATIONS_KEPT,
        "DESTINATIONS_STRATEGY": DESTINATIONS_STRATEGY,
        "DESTINATIONS_POINTS": DESTINATIONS_POINTS,
        "DESTINATIONS_CARDS": DESTINATIONS_CARDS,
        "DESTINATIONS_REACHED": DESTINATIONS_REACHED,
        "DESTINATIONS_REACHED_ROUND": DESTINATIONS_REACHED_ROUND,
        "DESTINATIONS_NET_POINTS": DESTINATIONS_NET_POINTS,
    }
