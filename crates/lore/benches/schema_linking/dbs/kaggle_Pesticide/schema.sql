-- kaggle_Pesticide: derived by build.py from Chia-Hsuan-Lee/KaggleDBQA (KaggleDBQA_tables.json, examples/); see README.md

CREATE TABLE "sampledata15" (
  "sample_pk" NUMERIC, -- PDP Sample ID - unique sample identifer
  "state" TEXT, -- State code for location of origin (grower packer or distributor) if sample is domestic
  "year" TEXT, -- 2-digit Year
  "month" TEXT, -- 2-digit Month
  "day" TEXT, -- 2-digit Day
  "site" TEXT, -- 4-digit Collection Site code
  "commod" TEXT, -- Commodity Code for product collected
  "source_id" TEXT, -- optional 1-letter Source ID code
  "variety" TEXT, -- Variety/class of the product collected
  "origin" TEXT, -- Code indicating sample origin
  "country" TEXT, -- Country of origin if the sample was imported
  "disttype" TEXT, -- Code for type of collection/distribution facility
  "commtype" TEXT, -- Code for commodity or package/container type
  "claim" TEXT, -- Code for claim made on product
  "quantity" NUMERIC, -- Number of individual units in sample for select non-clustered products
  "growst" TEXT, -- the grow state of the sampledata15
  "packst" TEXT, -- the pack state of the sampledata15
  "distst" TEXT, -- the distribution state of the sampledata15
  PRIMARY KEY ("sample_pk")
);

CREATE TABLE "resultsdata15" (
  "sample_pk" NUMERIC, -- the sample pk of the resultsdata15
  "commod" TEXT, -- the commodity code of the resultsdata15
  "commtype" TEXT, -- the commodity type of the resultsdata15
  "lab" TEXT, -- the lab code of the resultsdata15
  "pestcode" TEXT, -- FDA/PDP Pesticide Code for compound tested
  "testclass" TEXT, -- Code for Test Classification
  "concen" NUMERIC, -- Concentration of residue detected. Zero (0) for non-detect
  "lod" NUMERIC, -- Limit of Detection for pesticide/commodity pair
  "conunit" TEXT, -- Concentration of residue detected
  "confmethod" TEXT, -- Code for primary Confirmation method
  "confmethod2" TEXT, -- Code for secondary Confirmation method
  "annotate" TEXT, -- Code for Annotated Information
  "quantitate" TEXT, -- Code for Quantitative method
  "mean" TEXT, -- Code for Mean Result finding
  "extract" TEXT, -- Code for Extraction method
  "determin" TEXT, -- Code for Determinative method
  FOREIGN KEY ("sample_pk") REFERENCES "sampledata15" ("sample_pk")
);

