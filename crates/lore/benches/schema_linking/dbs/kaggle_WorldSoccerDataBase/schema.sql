-- kaggle_WorldSoccerDataBase: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "betfront" (
  "YEAR" NUMERIC, -- the year of the betfront
  "DATETIME" TIMESTAMP, -- the datetime of the betfront
  "COUNTRY" TEXT, -- the country of the betfront
  "COMPETION" TEXT, -- the competion of the betfront
  "MATCH" TEXT, -- the match of the betfront
  "HOME_OPENING" NUMERIC, -- the home opening of the betfront
  "DRAW_OPENING" NUMERIC, -- the draw opening of the betfront
  "AWAY_OPENING" NUMERIC, -- the away opening of the betfront
  "HOME_CLOSING" NUMERIC, -- the home closing of the betfront
  "DRAW_CLOSING" NUMERIC, -- the draw closing of the betfront
  "AWAY_CLOSING" NUMERIC -- the away closing of the betfront
);

CREATE TABLE "football_data" (
  "Season" TEXT, -- the season of the football_data
  "Datetime" TIMESTAMP, -- the datetime of the football_data
  "Div" TEXT, -- League Division
  "Country" TEXT, -- the country of the football_data
  "League" TEXT, -- the league of the football_data
  "Referee" TEXT, -- Match Referee
  "HomeTeam" TEXT, -- Home Team
  "AwayTeam" TEXT, -- Away Team
  "FTHG" NUMERIC, -- Full Time Home Team Goals
  "FTAG" NUMERIC, -- Full Time Away Team Goals
  "FTR" TEXT, -- Full Time Result (H: Home Win, D: Draw, A: Away Win)
  "HTHG" NUMERIC, -- Half Time Home Team Goals
  "HTAG" NUMERIC, -- Half Time Away Team Goals
  "HTR" TEXT, -- Half Time Result (H: Home Win, D: Draw, A: Away Win)
  "PSH" NUMERIC, -- Pinnacle home win odds
  "PSD" NUMERIC, -- Pinnacle draw odds
  "PSA" NUMERIC, -- Pinnacle away win odds
  "B365H" NUMERIC, -- Bet365 home win odds
  "B365D" NUMERIC, -- Bet365 draw odds
  "B365A" NUMERIC, -- Bet365 away win odds
  "LBH" NUMERIC, -- Ladbrokes home win odds
  "LBD" NUMERIC, -- Ladbrokes draw odds
  "LBA" NUMERIC, -- Ladbrokes away win odds
  "BWH" NUMERIC, -- Bet&Win home win odds
  "BWD" NUMERIC, -- Bet&Win draw odds
  "BWA" NUMERIC -- Bet&Win away win odds
);

