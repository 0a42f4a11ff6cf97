-- ehrsql_eicu: derived by build.py from glee4810/EHRSQL (dataset/ehrsql/eicu), MIT-LCP/eicu.mit.edu (_eicutables/*.md); see README.md

CREATE TABLE "patient" (
  "uniquepid" VARCHAR(10) NOT NULL,
  "patienthealthsystemstayid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "gender" VARCHAR(25) NOT NULL,
  "age" VARCHAR(10) NOT NULL,
  "ethnicity" VARCHAR(50),
  "hospitalid" INTEGER NOT NULL,
  "wardid" INTEGER NOT NULL,
  "admissionheight" NUMERIC(10,2),
  "admissionweight" NUMERIC(10,2),
  "dischargeweight" NUMERIC(10,2),
  "hospitaladmittime" TIMESTAMP NOT NULL,
  "hospitaladmitsource" VARCHAR(30) NOT NULL,
  "unitadmittime" TIMESTAMP NOT NULL,
  "unitdischargetime" TIMESTAMP,
  "hospitaldischargetime" TIMESTAMP,
  "hospitaldischargestatus" VARCHAR(10),
  PRIMARY KEY ("patientunitstayid")
);

CREATE TABLE "diagnosis" (
  "diagnosisid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "diagnosisname" VARCHAR(200) NOT NULL,
  "diagnosistime" TIMESTAMP NOT NULL,
  "icd9code" VARCHAR(100),
  PRIMARY KEY ("diagnosisid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "treatment" (
  "treatmentid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "treatmentname" VARCHAR(200) NOT NULL,
  "treatmenttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("treatmentid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "lab" (
  "labid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "labname" VARCHAR(256) NOT NULL,
  "labresult" NUMERIC(11,4) NOT NULL,
  "labresulttime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("labid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "medication" (
  "medicationid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "drugname" VARCHAR(220) NOT NULL,
  "dosage" VARCHAR(60) NOT NULL,
  "routeadmin" VARCHAR(120) NOT NULL,
  "drugstarttime" TIMESTAMP,
  "drugstoptime" TIMESTAMP,
  PRIMARY KEY ("medicationid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "cost" (
  "costid" INTEGER NOT NULL,
  "uniquepid" VARCHAR(10) NOT NULL,
  "patienthealthsystemstayid" INTEGER NOT NULL,
  "eventtype" VARCHAR(20) NOT NULL,
  "eventid" INTEGER NOT NULL,
  "chargetime" TIMESTAMP NOT NULL,
  "cost" DOUBLE PRECISION NOT NULL,
  PRIMARY KEY ("costid"),
  FOREIGN KEY ("patienthealthsystemstayid") REFERENCES "patient" ("patienthealthsystemstayid")
);

CREATE TABLE "allergy" (
  "allergyid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "drugname" VARCHAR(255),
  "allergyname" VARCHAR(255) NOT NULL,
  "allergytime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("allergyid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "intakeoutput" (
  "intakeoutputid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "cellpath" VARCHAR(500) NOT NULL,
  "celllabel" VARCHAR(255) NOT NULL,
  "cellvaluenumeric" NUMERIC(12,4) NOT NULL,
  "intakeoutputtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("intakeoutputid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "microlab" (
  "microlabid" INTEGER NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "culturesite" VARCHAR(255) NOT NULL,
  "organism" VARCHAR(255) NOT NULL,
  "culturetakentime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("microlabid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

CREATE TABLE "vitalperiodic" (
  "vitalperiodicid" BIGINT NOT NULL,
  "patientunitstayid" INTEGER NOT NULL,
  "temperature" NUMERIC(11,4),
  "sao2" INTEGER,
  "heartrate" INTEGER,
  "respiration" INTEGER,
  "systemicsystolic" INTEGER,
  "systemicdiastolic" INTEGER,
  "systemicmean" INTEGER,
  "observationtime" TIMESTAMP NOT NULL,
  PRIMARY KEY ("vitalperiodicid"),
  FOREIGN KEY ("patientunitstayid") REFERENCES "patient" ("patientunitstayid")
);

