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
  "tag" TEXT
);

COMMENT ON COLUMN "torrents"."groupName" IS 'Release title';
COMMENT ON COLUMN "torrents"."totalSnatched" IS 'Number of times the release has been downloaded.';
COMMENT ON COLUMN "torrents"."artist" IS 'Artist/group name.';
COMMENT ON COLUMN "torrents"."groupYear" IS 'Release year.';
COMMENT ON COLUMN "torrents"."releaseType" IS 'Release type (e.g. album single mixtape)';
COMMENT ON COLUMN "torrents"."groupId" IS 'Unique release identifier from What.CD. Used to ensure no releases are duplicates.';
COMMENT ON COLUMN "torrents"."id" IS 'unique identifier (essentially an index).';
COMMENT ON COLUMN "tags"."index" IS 'the index of the tags';
COMMENT ON COLUMN "tags"."id" IS 'unique identifier (essentially an index).';
COMMENT ON COLUMN "tags"."tag" IS 'the tag of the tags';
ALTER TABLE "tags" ADD FOREIGN KEY ("id") REFERENCES "torrents" ("id");
