-- kaggle_WhatCDHipHop: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "torrents" (
  "groupName" TEXT,
  "totalSnatched" NUMERIC,
  "artist" TEXT,
  "groupYear" NUMERIC,
  "releaseType" TEXT,
  "groupId" NUMERIC,
  "id" NUMERIC,
  PRIMARY KEY ("id")
);

CREATE TABLE "tags" (
  "index" NUMERIC,
  "id" NUMERIC,
  "tag" TEXT,
  FOREIGN KEY ("id") REFERENCES "torrents" ("id")
);

