-- kaggle_WorldSoccerDataBase: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "betfront" (
  "YEAR" NUMERIC,
  "DATETIME" TIMESTAMP,
  "COUNTRY" TEXT,
  "COMPETION" TEXT,
  "MATCH" TEXT,
  "HOME_OPENING" NUMERIC,
  "DRAW_OPENING" NUMERIC,
  "AWAY_OPENING" NUMERIC,
  "HOME_CLOSING" NUMERIC,
  "DRAW_CLOSING" NUMERIC,
  "AWAY_CLOSING" NUMERIC
);

CREATE TABLE "football_data" (
  "Season" TEXT,
  "Datetime" TIMESTAMP,
  "Div" TEXT,
  "Country" TEXT,
  "League" TEXT,
  "Referee" TEXT,
  "HomeTeam" TEXT,
  "AwayTeam" TEXT,
  "FTHG" NUMERIC,
  "FTAG" NUMERIC,
  "FTR" TEXT,
  "HTHG" NUMERIC,
  "HTAG" NUMERIC,
  "HTR" TEXT,
  "PSH" NUMERIC,
  "PSD" NUMERIC,
  "PSA" NUMERIC,
  "B365H" NUMERIC,
  "B365D" NUMERIC,
  "B365A" NUMERIC,
  "LBH" NUMERIC,
  "LBD" NUMERIC,
  "LBA" NUMERIC,
  "BWH" NUMERIC,
  "BWD" NUMERIC,
  "BWA" NUMERIC
);

COMMENT ON COLUMN "betfront"."YEAR" IS 'the year of the betfront';
COMMENT ON COLUMN "betfront"."DATETIME" IS 'the datetime of the betfront';
COMMENT ON COLUMN "betfront"."COUNTRY" IS 'the country of the betfront';
COMMENT ON COLUMN "betfront"."COMPETION" IS 'the competion of the betfront';
COMMENT ON COLUMN "betfront"."MATCH" IS 'the match of the betfront';
COMMENT ON COLUMN "betfront"."HOME_OPENING" IS 'the home opening of the betfront';
COMMENT ON COLUMN "betfront"."DRAW_OPENING" IS 'the draw opening of the betfront';
COMMENT ON COLUMN "betfront"."AWAY_OPENING" IS 'the away opening of the betfront';
COMMENT ON COLUMN "betfront"."HOME_CLOSING" IS 'the home closing of the betfront';
COMMENT ON COLUMN "betfront"."DRAW_CLOSING" IS 'the draw closing of the betfront';
COMMENT ON COLUMN "betfront"."AWAY_CLOSING" IS 'the away closing of the betfront';
COMMENT ON COLUMN "football_data"."Season" IS 'the season of the football_data';
COMMENT ON COLUMN "football_data"."Datetime" IS 'the datetime of the football_data';
COMMENT ON COLUMN "football_data"."Div" IS 'League Division';
COMMENT ON COLUMN "football_data"."Country" IS 'the country of the football_data';
COMMENT ON COLUMN "football_data"."League" IS 'the league of the football_data';
COMMENT ON COLUMN "football_data"."Referee" IS 'Match Referee';
COMMENT ON COLUMN "football_data"."HomeTeam" IS 'Home Team';
COMMENT ON COLUMN "football_data"."AwayTeam" IS 'Away Team';
COMMENT ON COLUMN "football_data"."FTHG" IS 'Full Time Home Team Goals';
COMMENT ON COLUMN "football_data"."FTAG" IS 'Full Time Away Team Goals';
COMMENT ON COLUMN "football_data"."FTR" IS 'Full Time Result (H: Home Win, D: Draw, A: Away Win)';
COMMENT ON COLUMN "football_data"."HTHG" IS 'Half Time Home Team Goals';
COMMENT ON COLUMN "football_data"."HTAG" IS 'Half Time Away Team Goals';
COMMENT ON COLUMN "football_data"."HTR" IS 'Half Time Result (H: Home Win, D: Draw, A: Away Win)';
COMMENT ON COLUMN "football_data"."PSH" IS 'Pinnacle home win odds';
COMMENT ON COLUMN "football_data"."PSD" IS 'Pinnacle draw odds';
COMMENT ON COLUMN "football_data"."PSA" IS 'Pinnacle away win odds';
COMMENT ON COLUMN "football_data"."B365H" IS 'Bet365 home win odds';
COMMENT ON COLUMN "football_data"."B365D" IS 'Bet365 draw odds';
COMMENT ON COLUMN "football_data"."B365A" IS 'Bet365 away win odds';
COMMENT ON COLUMN "football_data"."LBH" IS 'Ladbrokes home win odds';
COMMENT ON COLUMN "football_data"."LBD" IS 'Ladbrokes draw odds';
COMMENT ON COLUMN "football_data"."LBA" IS 'Ladbrokes away win odds';
COMMENT ON COLUMN "football_data"."BWH" IS 'Bet&Win home win odds';
COMMENT ON COLUMN "football_data"."BWD" IS 'Bet&Win draw odds';
COMMENT ON COLUMN "football_data"."BWA" IS 'Bet&Win away win odds';
