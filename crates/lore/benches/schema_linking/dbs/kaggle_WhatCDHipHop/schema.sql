-- kaggle_WhatCDHipHop: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "torrents" (
  "groupName" TEXT, -- Release title
  "totalSnatched" NUMERIC, -- Number of times the release has been downloaded.
  "artist" TEXT, -- Artist/group name.
  "groupYear" NUMERIC, -- Release year.
  "releaseType" TEXT, -- Release type (e.g. album single mixtape)
  "groupId" NUMERIC, -- Unique release identifier from What.CD. Used to ensure no releases are duplicates.
  "id" NUMERIC, -- unique identifier (essentially an index).
  PRIMARY KEY ("id")
);

CREATE TABLE "tags" (
  "index" NUMERIC, -- the index of the tags
  "id" NUMERIC, -- unique identifier (essentially an index).
  "tag" TEXT, -- the tag of the tags
  FOREIGN KEY ("id") REFERENCES "torrents" ("id")
);

