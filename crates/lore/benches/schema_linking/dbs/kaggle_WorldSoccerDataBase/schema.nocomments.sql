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

