-- kaggle_Pesticide: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "sampledata15" (
  "sample_pk" NUMERIC,
  "state" TEXT,
  "year" TEXT,
  "month" TEXT,
  "day" TEXT,
  "site" TEXT,
  "commod" TEXT,
  "source_id" TEXT,
  "variety" TEXT,
  "origin" TEXT,
  "country" TEXT,
  "disttype" TEXT,
  "commtype" TEXT,
  "claim" TEXT,
  "quantity" NUMERIC,
  "growst" TEXT,
  "packst" TEXT,
  "distst" TEXT,
  PRIMARY KEY ("sample_pk")
);

CREATE TABLE "resultsdata15" (
  "sample_pk" NUMERIC,
  "commod" TEXT,
  "commtype" TEXT,
  "lab" TEXT,
  "pestcode" TEXT,
  "testclass" TEXT,
  "concen" NUMERIC,
  "lod" NUMERIC,
  "conunit" TEXT,
  "confmethod" TEXT,
  "confmethod2" TEXT,
  "annotate" TEXT,
  "quantitate" TEXT,
  "mean" TEXT,
  "extract" TEXT,
  "determin" TEXT,
  FOREIGN KEY ("sample_pk") REFERENCES "sampledata15" ("sample_pk")
);

