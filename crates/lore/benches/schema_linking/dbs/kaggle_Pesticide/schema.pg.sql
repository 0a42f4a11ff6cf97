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
  "determin" TEXT
);

COMMENT ON COLUMN "sampledata15"."sample_pk" IS 'PDP Sample ID - unique sample identifer';
COMMENT ON COLUMN "sampledata15"."state" IS 'State code for location of origin (grower packer or distributor) if sample is domestic';
COMMENT ON COLUMN "sampledata15"."year" IS '2-digit Year';
COMMENT ON COLUMN "sampledata15"."month" IS '2-digit Month';
COMMENT ON COLUMN "sampledata15"."day" IS '2-digit Day';
COMMENT ON COLUMN "sampledata15"."site" IS '4-digit Collection Site code';
COMMENT ON COLUMN "sampledata15"."commod" IS 'Commodity Code for product collected';
COMMENT ON COLUMN "sampledata15"."source_id" IS 'optional 1-letter Source ID code';
COMMENT ON COLUMN "sampledata15"."variety" IS 'Variety/class of the product collected';
COMMENT ON COLUMN "sampledata15"."origin" IS 'Code indicating sample origin';
COMMENT ON COLUMN "sampledata15"."country" IS 'Country of origin if the sample was imported';
COMMENT ON COLUMN "sampledata15"."disttype" IS 'Code for type of collection/distribution facility';
COMMENT ON COLUMN "sampledata15"."commtype" IS 'Code for commodity or package/container type';
COMMENT ON COLUMN "sampledata15"."claim" IS 'Code for claim made on product';
COMMENT ON COLUMN "sampledata15"."quantity" IS 'Number of individual units in sample for select non-clustered products';
COMMENT ON COLUMN "sampledata15"."growst" IS 'the grow state of the sampledata15';
COMMENT ON COLUMN "sampledata15"."packst" IS 'the pack state of the sampledata15';
COMMENT ON COLUMN "sampledata15"."distst" IS 'the distribution state of the sampledata15';
COMMENT ON COLUMN "resultsdata15"."sample_pk" IS 'the sample pk of the resultsdata15';
COMMENT ON COLUMN "resultsdata15"."commod" IS 'the commodity code of the resultsdata15';
COMMENT ON COLUMN "resultsdata15"."commtype" IS 'the commodity type of the resultsdata15';
COMMENT ON COLUMN "resultsdata15"."lab" IS 'the lab code of the resultsdata15';
COMMENT ON COLUMN "resultsdata15"."pestcode" IS 'FDA/PDP Pesticide Code for compound tested';
COMMENT ON COLUMN "resultsdata15"."testclass" IS 'Code for Test Classification';
COMMENT ON COLUMN "resultsdata15"."concen" IS 'Concentration of residue detected. Zero (0) for non-detect';
COMMENT ON COLUMN "resultsdata15"."lod" IS 'Limit of Detection for pesticide/commodity pair';
COMMENT ON COLUMN "resultsdata15"."conunit" IS 'Concentration of residue detected';
COMMENT ON COLUMN "resultsdata15"."confmethod" IS 'Code for primary Confirmation method';
COMMENT ON COLUMN "resultsdata15"."confmethod2" IS 'Code for secondary Confirmation method';
COMMENT ON COLUMN "resultsdata15"."annotate" IS 'Code for Annotated Information';
COMMENT ON COLUMN "resultsdata15"."quantitate" IS 'Code for Quantitative method';
COMMENT ON COLUMN "resultsdata15"."mean" IS 'Code for Mean Result finding';
COMMENT ON COLUMN "resultsdata15"."extract" IS 'Code for Extraction method';
COMMENT ON COLUMN "resultsdata15"."determin" IS 'Code for Determinative method';
ALTER TABLE "resultsdata15" ADD FOREIGN KEY ("sample_pk") REFERENCES "sampledata15" ("sample_pk");
