-- ehrsql_mimic_iii: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/mimic_iii), MIT-LCP/mimic-code (postgres_add_comments.sql); see README.md

CREATE TABLE "patients" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "gender" VARCHAR(5) NOT NULL,
  "dob" TIMESTAMP NOT NULL,
  "dod" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  UNIQUE ("subject_id")
);

CREATE TABLE "admissions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "admittime" TIMESTAMP NOT NULL,
  "dischtime" TIMESTAMP,
  "admission_type" VARCHAR(50) NOT NULL,
  "admission_location" VARCHAR(50) NOT NULL,
  "discharge_location" VARCHAR(50),
  "insurance" VARCHAR(255) NOT NULL,
  "language" VARCHAR(10),
  "marital_status" VARCHAR(50),
  "ethnicity" VARCHAR(200) NOT NULL,
  "age" INTEGER NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("hadm_id"),
  FOREIGN KEY ("subject_id") REFERENCES "patients" ("subject_id")
);

CREATE TABLE "d_icd_diagnoses" (
  "row_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "short_title" VARCHAR(50) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_icd_procedures" (
  "row_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "short_title" VARCHAR(50) NOT NULL,
  "long_title" VARCHAR(255) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("icd9_code")
);

CREATE TABLE "d_labitems" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "d_items" (
  "row_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "label" VARCHAR(200) NOT NULL,
  "linksto" VARCHAR(50) NOT NULL,
  PRIMARY KEY ("row_id"),
  UNIQUE ("itemid")
);

CREATE TABLE "diagnoses_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd9_code") REFERENCES "d_icd_diagnoses" ("icd9_code")
);

CREATE TABLE "procedures_icd" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icd9_code" VARCHAR(10) NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icd9_code") REFERENCES "d_icd_procedures" ("icd9_code")
);

CREATE TABLE "labevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(20),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_labitems" ("itemid")
);

CREATE TABLE "prescriptions" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "startdate" TIMESTAMP NOT NULL,
  "enddate" TIMESTAMP,
  "drug" VARCHAR(100) NOT NULL,
  "dose_val_rx" VARCHAR(120) NOT NULL,
  "dose_unit_rx" VARCHAR(120) NOT NULL,
  "route" VARCHAR(120) NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "cost" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "event_type" VARCHAR(20) NOT NULL,
  "event_id" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("event_id") REFERENCES "diagnoses_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "procedures_icd" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "labevents" ("row_id"),
  FOREIGN KEY ("event_id") REFERENCES "prescriptions" ("row_id")
);

CREATE TABLE "chartevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "itemid" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "valuenum" DOUBLE PRECISION,
  "valueuom" VARCHAR(50),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "inputevents_cv" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "amount" DOUBLE PRECISION,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "outputevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "itemid" INTEGER NOT NULL,
  "value" DOUBLE PRECISION,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id"),
  FOREIGN KEY ("icustay_id") REFERENCES "icustays" ("icustay_id"),
  FOREIGN KEY ("itemid") REFERENCES "d_items" ("itemid")
);

CREATE TABLE "microbiologyevents" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "charttime" TIMESTAMP NOT NULL,
  "spec_type_desc" VARCHAR(100),
  "org_name" VARCHAR(100),
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "icustays" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER NOT NULL,
  "first_careunit" VARCHAR(20) NOT NULL,
  "last_careunit" VARCHAR(20) NOT NULL,
  "first_wardid" SMALLINT NOT NULL,
  "last_wardid" SMALLINT NOT NULL,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

CREATE TABLE "transfers" (
  "row_id" INTEGER NOT NULL,
  "subject_id" INTEGER NOT NULL,
  "hadm_id" INTEGER NOT NULL,
  "icustay_id" INTEGER,
  "eventtype" VARCHAR(20) NOT NULL,
  "careunit" VARCHAR(20),
  "wardid" SMALLINT,
  "intime" TIMESTAMP NOT NULL,
  "outtime" TIMESTAMP,
  PRIMARY KEY ("row_id"),
  FOREIGN KEY ("hadm_id") REFERENCES "admissions" ("hadm_id")
);

