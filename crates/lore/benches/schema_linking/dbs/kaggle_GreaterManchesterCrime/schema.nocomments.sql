-- kaggle_GreaterManchesterCrime: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "GreaterManchesterCrime" (
  "CrimeID" TEXT,
  "CrimeTS" TIMESTAMP,
  "Location" TEXT,
  "LSOA" TEXT,
  "Type" TEXT,
  "Outcome" TEXT,
  PRIMARY KEY ("CrimeID")
);

